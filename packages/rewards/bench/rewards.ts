// Cost of scoring episodes: the full composed reward (every component) and the reference judge,
// on synthetic ALFWorld-like episodes of 30 turns.
import { createRng } from '@pilotrl/core';
import { episodeRecord, planRevision } from '@pilotrl/env-testkit/test';
import { composeRewards } from '../src/compose-rewards';
import { createFormatReward } from '../src/format';
import { createInvalidActionPenalty } from '../src/invalid-action';
import { createOutcomeReward } from '../src/outcome';
import { createOverlongPenalty } from '../src/overlong';
import { createPlanAdherenceReward } from '../src/plan-adherence';
import { createReferenceJudge } from '../src/reference-judge';
import { createRepeatedActionPenalty } from '../src/repeated-action';

const EPISODES = 2000;
const rng = createRng(1);
const places = ['countertop 1', 'countertop 2', 'cabinet 3', 'fridge 1', 'microwave 1', 'sinkbasin 1'];
const verbs = ['go to', 'open', 'take apple 1 from', 'heat apple 1 with', 'put apple 1 in/on'];
const referencePlan = [
  'Go to countertop 1 and take the apple',
  'Heat it with microwave 1',
  'Put the apple in fridge 1',
];
const referenceActions = [
  'go to countertop 1',
  'take apple 1 from countertop 1',
  'go to microwave 1',
  'heat apple 1 with microwave 1',
  'go to fridge 1',
  'put apple 1 in/on fridge 1',
];

const episodes = Array.from({ length: EPISODES }, (_, index) => {
  const actions = Array.from({ length: 30 }, () =>
    rng.float() < 0.05 ? null : `${rng.pick(verbs)} ${rng.pick(places)}`,
  );
  const played = episodeRecord(actions, {
    id: `e${index}`,
    won: rng.float() < 0.5,
    planHistory: [planRevision(referencePlan)],
  });
  played.turns = played.turns.map((t) =>
    t.action !== null && rng.float() < 0.1 ? { ...t, valid: false } : t,
  );
  return played;
});

const composed = composeRewards([
  { fn: createOutcomeReward(), weight: 1 },
  { fn: createFormatReward(), weight: 0.5 },
  { fn: createInvalidActionPenalty(), weight: 0.1 },
  { fn: createRepeatedActionPenalty(), weight: 0.1 },
  { fn: createOverlongPenalty({ maxLength: 256, cacheLength: 64 }), weight: 1 },
  { fn: createPlanAdherenceReward(), weight: 0.2 },
]);
await composed.applyAll(episodes.slice(0, 50));
let started = performance.now();
await composed.applyAll(episodes);
const rewardSeconds = (performance.now() - started) / 1000;
console.log(`composed reward (6 functions, 30 turns): ${(EPISODES / rewardSeconds).toFixed(0)} episodes/s`);

const judge = createReferenceJudge();
const inputs = episodes.map((e, index) => ({
  task: 'Put a hot apple in the fridge.',
  plan: [
    `Go to ${places[index % places.length]} and take the apple`,
    'Heat it with microwave 1',
    'Put the apple in fridge 1',
  ],
  observation: e.initialObservation,
  reference: { plan: referencePlan, actions: referenceActions },
}));
started = performance.now();
await judge.judge(inputs);
const judgeSeconds = (performance.now() - started) / 1000;
console.log(`reference judge: ${(EPISODES / judgeSeconds).toFixed(0)} plans/s`);
console.log(
  `throughput ratio, reference judge / composed reward: ${(rewardSeconds / judgeSeconds).toFixed(2)}`,
);
