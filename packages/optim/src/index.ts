// @pilotrl/optim: the policy-gradient update step with its advantage estimators and losses (by
// name, from the registries), and expert iteration.
export type {
  AdvantageEstimator,
  AdvantageInput,
  AdvantageResult,
  TokenTable,
} from './advantage';
export type { Aggregation } from './aggregation';
export {
  createExpertIteration,
  type ExpertIteration,
  type ExpertIterationConfig,
  type ExpertIterationInput,
  type ExpertIterationState,
  type SftStepFn,
} from './expert-iteration';
export type { PolicyLossFactory } from './policy-loss';
export { advantageEstimators, policyLosses } from './registries';
export {
  createUpdateStep,
  type UpdateConfig,
  type UpdateOptions,
  type UpdateResult,
  type UpdateStep,
} from './update-step';
