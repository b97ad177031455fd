// @pilotrl/optim: the policy-gradient update step with its advantage estimators and losses (by
// name, from the registries), expert iteration, and supervised fine-tuning (the one SFT step, the
// minibatch loop around it, learning-rate schedules).
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
export { episodeDatums, type SelectOptions, selectByReward, type WeightedEpisode } from './reward-selection';
export { linearAnneal, linearWarmup, type WarmupCosineOptions, warmupCosine } from './schedules';
export { SFT_ADAM, type SftStepResult, sftStep } from './sft-step';
export { type SftOptions, type SftReport, sftOptionsSchema, trainSft } from './train-sft';
export {
  createUpdateStep,
  type UpdateConfig,
  type UpdateOptions,
  type UpdateResult,
  type UpdateStep,
} from './update-step';
