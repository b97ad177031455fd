// Time of one update step per algorithm on a fixed batch: 64 corridor episodes (8 tasks × 8
// samples) played once by a seeded d64/L2 tfjs policy, then for each estimator a fresh copy of
// that policy takes one update (forward pass for old logprobs, one forwardBackward, one optimStep;
// a last row takes the sampler's logprobs instead of the forward pass).
// Also times the estimators alone on a large synthetic batch, to show they are not the cost.
import { CORRIDOR_ENV_ID, corridorTasks, createCorridorEnv } from '@pilotrl/env-testkit';
import { TfjsPolicy, Tokenizer } from '@pilotrl/policy-tfjs';
import { advantageEstimators, createUpdateStep, type TokenTable } from '../src/index';
import { playChoices } from '../test/play-choices';

const ESTIMATORS = ['grpo', 'rloo', 'reinforce++', 'gae', 'turn-level'];
const REPEATS = 3;

const createEnv = () => createCorridorEnv({ maxSteps: 12 });
const taskRefs = await corridorTasks.tasks('train', { limit: 8 });
const corpus: string[] = [];
for (const task of await corridorTasks.tasks('train', { limit: 64 })) {
  const first = await createEnv().reset({ seed: task.seed, taskId: task.taskId });
  corpus.push(first.observation, ...first.admissibleActions);
}
const tokenizer = Tokenizer.train(corpus, { vocabSize: 400 });
const makePolicy = (valueHead: boolean) =>
  TfjsPolicy.create({
    tokenizer,
    model: { dModel: 64, nLayers: 2, nHeads: 4, contextLength: 256, valueHead, seed: 1 },
    backend: 'wasm',
  });

const player = await makePolicy(false);
const episodes = await playChoices(player.sampler(), {
  envId: CORRIDOR_ENV_ID,
  createEnv,
  tasks: taskRefs,
  groupSize: 8,
  seed: 1,
});
// Fixed rewards that vary within every group, so no group is filtered and all estimators see the same batch.
episodes.forEach((episode, i) => {
  episode.reward = (i * 7) % 3 === 0 ? 1 : 0;
});
const generations = episodes.reduce((n, e) => n + e.turns.length, 0);
const tokens = episodes.reduce(
  (n, e) => n + e.turns.reduce((m, t) => m + t.generations[0]!.tokenIds.length, 0),
  0,
);
console.log(
  `batch: ${episodes.length} episodes, ${generations} generations, ${tokens} tokens; backend ${player.backend.choice}`,
);

// The batch's generations carry the allowed ids of their constrained decoding, so the sampler's
// logprobs are exact old logprobs and the last row skips the forward pass.
const variants = [
  ...ESTIMATORS.map((estimator) => ({ name: estimator, estimator, oldLogprobs: 'recompute' as const })),
  { name: 'turn-level, sampler logprobs', estimator: 'turn-level', oldLogprobs: 'sampler' as const },
];
const results: { name: string; ms: number }[] = [];
for (const { name, estimator, oldLogprobs } of variants) {
  const times: number[] = [];
  for (let r = 0; r < REPEATS; r++) {
    const policy = await makePolicy(estimator === 'gae');
    const update = createUpdateStep({
      estimator,
      oldLogprobs,
      adam: { learningRate: 1e-3, gradClipNorm: 1 },
    });
    const start = performance.now();
    await update(policy, episodes);
    times.push(performance.now() - start);
    policy.dispose();
  }
  times.sort((a, b) => a - b);
  results.push({ name, ms: times[Math.floor(times.length / 2)]! });
}
const base = results[0]!.ms;
console.log('\nupdate step (median of 3; forward + forwardBackward + optimStep):');
for (const { name, ms } of results) {
  console.log(`  ${name.padEnd(30)} ${ms.toFixed(0).padStart(6)} ms   ×${(ms / base).toFixed(2)} of grpo`);
}

// Estimators alone: 1,024 episodes of 25 turns, 40 tokens per generation.
const big = Array.from({ length: 1024 }, (_, i) => ({
  ...episodes[i % episodes.length]!,
  id: `e${i}`,
  groupId: `g${Math.floor(i / 16)}`,
  reward: (i * 7) % 3 === 0 ? 1 : 0,
  turns: Array.from({ length: 25 }, (_, t) => ({
    ...episodes[0]!.turns[0]!,
    index: t,
    observation: `room ${(i + t) % 7}`,
    generations: [
      {
        ...episodes[0]!.turns[0]!.generations[0]!,
        tokenIds: new Array(40).fill(5),
        lossMask: Array.from({ length: 40 }, (_, k) => (k < 32 ? 0 : 1) as 0 | 1),
        logprobs: new Array(40).fill(0),
      },
    ],
  })),
}));
const values: TokenTable = big.map((e) => e.turns.map(() => new Array(40).fill(0.1)));
console.log(
  `\nestimators alone on ${big.length} episodes × 25 turns × 40 tokens (${big.length * 25 * 8} model tokens):`,
);
for (const name of ESTIMATORS) {
  const estimator = advantageEstimators.get(name).create({});
  const start = performance.now();
  estimator.estimate({ episodes: big, values });
  console.log(`  ${name.padEnd(12)} ${(performance.now() - start).toFixed(1).padStart(7)} ms`);
}
