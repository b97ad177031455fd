// @pilotrl/core: the contracts every other package meets at, and the few utilities they all share.
export type {
  AdvantageEstimator,
  AdvantageInput,
  AdvantageResult,
  EstimatorDescriptor,
  EstimatorRequirement,
  TokenTable,
} from './advantage-estimator';
export type { ChatModel, ChatModelReply, ChatModelRequest } from './chat-model';
export {
  type EnvInfo,
  EPISODE_OVER_OBSERVATION,
  type EpisodeProgress,
  envInfoSchema,
  type ResetOptions,
  resetOptionsSchema,
  type StepResult,
  stepEpisode,
  stepResultSchema,
  type TextEnv,
  type VectorEnv,
} from './env';
export {
  type DemonstrateOptions,
  type Demonstrator,
  type EpisodeView,
  type EpisodeViewFactory,
  type HindsightRelabeller,
  latestObservationView,
  type PlanStepVocabulary,
  type Reached,
} from './env-capabilities';
export {
  EPISODE_FORMAT_VERSION,
  type Episode,
  episodeSchema,
  type Generation,
  generationSchema,
  type PlanRevision,
  planRevisionSchema,
  type Turn,
  turnSchema,
} from './episode';
export {
  CheckpointError,
  ConfigError,
  describeIssues,
  EnvError,
  InvalidArgumentError,
  NotFoundError,
  ParseError,
  PilotRLError,
  parseOrThrow,
  printable,
  TimeoutError,
  UnsolvableTaskError,
} from './errors';
export { createLimiter, type Limiter } from './limiter';
export {
  createEnvProvider,
  type DefinedPlugin,
  definePlugin,
  type EnvDescriptor,
  type EnvProvider,
  optionsKnownTo,
  type PilotrlPlugin,
  withCachedOracle,
} from './plugin';
export {
  type ChatMessage,
  chatMessageSchema,
  type GenerateRequest,
  type GenerateResult,
  generateRequestSchema,
  generateResultSchema,
  type Policy,
  type ResolvedGenerateRequest,
} from './policy';
export type {
  FrozenPolicy,
  PolicyBackendContext,
  PolicyBackendDescriptor,
  PolicyBackendOffers,
  PolicyBackendStart,
  PolicyCreateContext,
  PolicyOptions,
  PolicyOptionsProblem,
  ReplyExample,
  RunPolicy,
} from './policy-backend';
export { createRegistry, type Registry, type RegistryOptions } from './registry';
export {
  type Judge,
  type JudgeContext,
  type JudgeDescriptor,
  type JudgeInput,
  type JudgeResult,
  judgeInputSchema,
  judgeResultSchema,
  type RewardComponents,
  type RewardContext,
  type RewardDescriptor,
  type RewardFn,
  type RewardRequirement,
  type RubricScore,
  rewardComponentsSchema,
  rubricScoreSchema,
} from './reward';
export { createRng, hashString, type Rng, type RngState, rngFromState } from './rng';
export {
  type CopyableEnv,
  canCopyAt,
  canCopyState,
  requireStateCopies,
  type StateCopies,
  type VectorStateCopies,
} from './state-copies';
export {
  formatPercent,
  type Interval,
  mean,
  meanInterval,
  sampleStd,
  studentTQuantile,
  wilsonInterval,
} from './stats';
export { createStepCheckRecorder, type StepCheckRecorder } from './step-check-recorder';
export {
  type CheckingEnv,
  canCheckSteps,
  canCheckStepsAt,
  requireStepChecks,
  type StepCheck,
  type StepCheckRecord,
  type StepChecks,
  type StepPass,
  stepCheckRecordSchema,
  stepPassSchema,
  type VectorStepChecks,
} from './step-checks';
export {
  type OracleSolution,
  oracleSolutionSchema,
  type Plan,
  planSchema,
  type TaskRange,
  type TaskRef,
  type TaskSource,
  taskRange,
  taskRefSchema,
  UNBOUNDED_SPLIT_PAGE,
} from './task';
export {
  type AdamParams,
  adamParamsSchema,
  type Datum,
  datumSchema,
  type ForwardBackwardOptions,
  type ForwardBackwardResult,
  type ForwardResult,
  forwardBackwardOptionsSchema,
  type LossFn,
  type LossFnInput,
  type LossFnOutput,
  type OptimStepResult,
  type TrainablePolicy,
} from './trainable-policy';
export { turnRewards, turnStateKey } from './turn-rewards';
