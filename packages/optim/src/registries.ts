// Estimators and losses by name, so a config names them and users register their own
// (`advantageEstimators.register('mine', factory)`) without editing this package.
import { createRegistry } from '@pilotrl/core';
import type { AdvantageEstimatorFactory } from './advantage';
import { type GaeArgs, gae } from './gae';
import { type GrpoArgs, grpo } from './grpo';
import { type ImportanceSamplingLossArgs, importanceSamplingLoss } from './importance-sampling-loss';
import type { PolicyLossFactory } from './policy-loss';
import { type PpoLossArgs, ppoLoss } from './ppo-loss';
import { type ReinforcePlusPlusArgs, reinforcePlusPlus } from './reinforce-plus-plus';
import { type RlooArgs, rloo } from './rloo';
import { type TurnLevelArgs, turnLevel } from './turn-level';

// Each factory validates its own arguments with its zod schema, so `unknown` is safe to pass on.
export const advantageEstimators = createRegistry<AdvantageEstimatorFactory>('advantage estimator');
advantageEstimators.register('grpo', (args) => grpo(args as GrpoArgs));
advantageEstimators.register('rloo', (args) => rloo(args as RlooArgs));
advantageEstimators.register('reinforce++', (args) => reinforcePlusPlus(args as ReinforcePlusPlusArgs));
advantageEstimators.register('gae', (args) => gae(args as GaeArgs));
advantageEstimators.register('turn-level', (args) => turnLevel(args as TurnLevelArgs));

export const policyLosses = createRegistry<PolicyLossFactory>('policy loss');
policyLosses.register('ppo', (args) => ppoLoss(args as PpoLossArgs));
policyLosses.register('importance_sampling', (args) =>
  importanceSamplingLoss(args as ImportanceSamplingLossArgs),
);
