// The rewards a curriculum stage can weigh by name (`rewards: { outcome: 1, ... }`), each a
// descriptor: what it requires of the run, the stage kinds it belongs to, and how to make it for a
// run. Register your own with `rewardRegistry.register(descriptor.id, descriptor)`, or ship it in
// a plug-in; either way a config names it without any change to the app.
import { createRegistry, type RewardDescriptor } from '@pilotrl/core';
import { createFormatReward } from './format';
import { createInvalidActionPenalty } from './invalid-action';
import { createLoopPenalty } from './loop-penalty';
import { createOutcomeReward } from './outcome';
import { createOverlongPenalty } from './overlong';
import { createPlanAdherenceReward } from './plan-adherence';
import { createRepeatedActionPenalty } from './repeated-action';
import type { EpisodeRewardFn } from './reward-fn';
import { createStepPassReward } from './step-pass';

export type EpisodeRewardDescriptor = RewardDescriptor<EpisodeRewardFn>;

export const rewardRegistry = createRegistry<EpisodeRewardDescriptor>('reward');

const builtinRewards: EpisodeRewardDescriptor[] = [
  { id: 'outcome', description: 'won or not', requires: [], create: () => createOutcomeReward() },
  { id: 'format', description: 'turns that parse', requires: [], create: () => createFormatReward() },
  {
    id: 'plan_adherence',
    description: 'how much of the plan given the actions carried out',
    requires: ['plans'],
    stageKinds: ['follow'],
    create: () => createPlanAdherenceReward({ plan: 'first' }),
  },
  {
    id: 'plan_quality',
    description: "the judge's score of the plan in force at each step, scaled to [0, 1]",
    requires: ['plans'],
    stageKinds: ['plan'],
    create: (context) => context.planJudge(),
  },
  {
    id: 'repeated_action',
    description: 'a command repeated back to back',
    requires: [],
    create: () => createRepeatedActionPenalty(),
  },
  {
    id: 'invalid_action',
    description: 'a command the env refused',
    requires: [],
    create: () => createInvalidActionPenalty(),
  },
  {
    id: 'overlong',
    description: 'completions near the token limit (DAPO)',
    requires: [],
    // Plans are the longest answers an AdaPlan agent writes, so they set the length limit.
    create: (context) =>
      createOverlongPenalty({
        maxLength: context.paradigm === 'adaplan' ? context.maxPlanTokens : context.maxActionTokens,
        cacheLength: Math.min(context.overlongBuffer, context.maxActionTokens),
      }),
  },
  {
    id: 'step_pass',
    description: "each plan step the env's checks pass, paid at its turn (the weight is the amount)",
    requires: ['plans', 'planSteps'],
    create: () => createStepPassReward({ amount: 1 }),
  },
  {
    id: 'loop_penalty',
    description: 'a command repeated from the same state, at its turn (the weight is the amount)',
    requires: [],
    create: () => createLoopPenalty({ penalty: 1 }),
  },
];
for (const descriptor of builtinRewards) rewardRegistry.register(descriptor.id, descriptor);
