// Estimators and losses by name, so a config names them and users register their own without
// editing this package.
import { createRegistry, type EstimatorDescriptor } from '@pilotrl/core';
import { type GaeArgs, gae, gaeArgsSchema } from './gae';
import { type GrpoArgs, grpo, grpoArgsSchema } from './grpo';
import { type ImportanceSamplingLossArgs, importanceSamplingLoss } from './importance-sampling-loss';
import type { PolicyLossFactory } from './policy-loss';
import { type PpoLossArgs, ppoLoss } from './ppo-loss';
import {
  type ReinforcePlusPlusArgs,
  reinforcePlusPlus,
  reinforcePlusPlusArgsSchema,
} from './reinforce-plus-plus';
import { type RlooArgs, rloo, rlooArgsSchema } from './rloo';
import { type TurnLevelArgs, turnLevel, turnLevelArgsSchema } from './turn-level';

/**
 * The estimators a config can name, each a descriptor: its options' schema (a stage's
 * `estimatorOptions`) and what it requires of the run. Register your own with
 * `advantageEstimators.register(descriptor.id, descriptor)`, or ship it in a plug-in.
 */
export const advantageEstimators = createRegistry<EstimatorDescriptor>('advantage estimator');

const builtinEstimators: EstimatorDescriptor[] = [
  {
    id: 'grpo',
    description: "each episode's reward against its group's mean, over its standard deviation",
    optionsSchema: grpoArgsSchema,
    requires: ['groups'],
    create: (options) => grpo(options as GrpoArgs),
  },
  {
    id: 'rloo',
    description: 'each episode against the mean of the others of its group (leave-one-out)',
    optionsSchema: rlooArgsSchema,
    requires: ['groups'],
    create: (options) => rloo(options as RlooArgs),
  },
  {
    id: 'reinforce++',
    description: 'the episode reward, whitened over the whole batch',
    optionsSchema: reinforcePlusPlusArgsSchema,
    requires: [],
    create: (options) => reinforcePlusPlus(options as ReinforcePlusPlusArgs),
  },
  {
    id: 'gae',
    description: "generalised advantage estimation on a value head's estimates",
    optionsSchema: gaeArgsSchema,
    requires: ['valueHead'],
    create: (options) => gae(options as GaeArgs),
  },
  {
    id: 'turn-level',
    description: 'an episode-level and a turn-level group advantage, added',
    optionsSchema: turnLevelArgsSchema,
    requires: ['groups'],
    create: (options) => turnLevel(options as TurnLevelArgs),
  },
];
for (const descriptor of builtinEstimators) advantageEstimators.register(descriptor.id, descriptor);

export const policyLosses = createRegistry<PolicyLossFactory>('policy loss');
policyLosses.register('ppo', (args) => ppoLoss(args as PpoLossArgs));
policyLosses.register('importance_sampling', (args) =>
  importanceSamplingLoss(args as ImportanceSamplingLossArgs),
);
