export { type ComposedReward, composeRewards, type WeightedReward } from './compose-rewards';
export { createFormatReward } from './format';
export { detectInstructionInjection, INJECTION_FLAG } from './injection';
export { createInvalidActionPenalty } from './invalid-action';
export { judgeRegistry } from './judge-registry';
export {
  createJudgeReward,
  type JudgeRewardHooks,
  judgeRewardOptionsSchema,
  perStepJudgeInputs,
} from './judge-reward';
export {
  createLlmJudge,
  INVALID_OUTPUT_FLAG,
  JudgeOutputError,
  type LlmJudge,
  type LlmJudgeOptions,
  llmJudgeOptionsSchema,
  rubricAnswerSchema,
} from './llm-judge';
export { createLoopPenalty, loopingTurns, loopPenaltyOptionsSchema } from './loop-penalty';
export { createOutcomeReward, outcomeOptionsSchema } from './outcome';
export { createOverlongPenalty, overlongOptionsSchema, overlongPenalty } from './overlong';
export { createPlanAdherenceReward, planAdherenceOptionsSchema } from './plan-adherence';
export {
  actionMatchesClause,
  alignActionsToPlan,
  type Clause,
  type ParsedAction,
  type PlanAlignment,
  parseAction,
  planClauses,
} from './plan-matching';
export { createReferenceJudge, formatProblems, referenceJudgeOptionsSchema } from './reference-judge';
export { createRepeatedActionPenalty, repeatedActionOptionsSchema } from './repeated-action';
export {
  type EpisodeRewardFn,
  type PenaltyMode,
  type PenaltyOptions,
  penaltyOptionsSchema,
} from './reward-fn';
export { type EpisodeRewardDescriptor, rewardRegistry } from './reward-registry';
export {
  neutralise,
  PLAN_END,
  PLAN_START,
  RUBRIC_PROMPT_VERSION,
  RUBRIC_SYSTEM_PROMPT,
  rubricUserPrompt,
} from './rubric-prompt';
export { recordStepChecks } from './step-check-replay';
export { createStepPassReward, stepPassOptionsSchema } from './step-pass';
