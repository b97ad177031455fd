// @pilotrl/agent: AdaPlan and ReAct agents, batched rollouts over a vector env, episode files,
// relabelling and replays, evaluation, test-time search (best-of-N plans, look-ahead), and a uniform
// random policy to play them with before any model is trained.
export {
  type ActionMatch,
  type ActionMatcher,
  type ActionMatchRule,
  createActionMatcher,
  exactRule,
  normalizedRule,
  uniquePrefixRule,
} from './action-matcher';
export {
  type Agent,
  type AgentOptions,
  createAdaPlanAgent,
  createReActAgent,
  type PlanProvider,
  type PlanRequestInput,
  type StepTracker,
} from './agent';
export { type AgentGymItem, agentGymToEpisode, episodeToAgentGym } from './agentgym';
export {
  iterateEpisodesJsonl,
  parseEpisodesJsonl,
  readEpisodesJsonl,
  writeEpisodesJsonl,
} from './episode-jsonl';
export {
  type EvalReport,
  type EvaluateOptions,
  evaluate,
  type SuccessSummary,
  summariseEpisodes,
} from './evaluate';
export { type ActParseResult, type PlanParseResult, parseActOutput, parsePlanOutput } from './output-parser';
export { fixedPlanProvider, oraclePlanProvider } from './plan-providers';
export {
  judgePlanScorer,
  type PlanCandidate,
  type PlanReference,
  type PlanScorer,
  valuePlanScorer,
} from './plan-scorers';
export { formatPlan, parsePlanSteps } from './plan-text';
export {
  createPromptTemplate,
  type Paradigm,
  type PromptTemplate,
  planBlock,
  promptTemplateFor,
  promptTemplateRegistry,
} from './prompt-templates';
export {
  createRandomPolicy,
  END_TOKEN_ID,
  type RandomPolicyOptions,
  randomPolicyOptionsSchema,
} from './random-policy';
export { type RelabelOptions, type RelabelReport, relabelEpisodes, winScript } from './relabel';
export { type EndReason, type RolloutHooks, type RolloutOptions, rollout } from './rollout';
export { replayScripts, type Script, ScriptCutShortError, type ScriptReplay } from './scripted-replay';
export {
  computeOf,
  emptyCompute,
  type SearchCompute,
  searchComputeSchema,
  totalCompute,
} from './search-compute';
export { envWin, type Replay, replay, shortcut } from './shortcut';
export {
  type BranchCheck,
  type LookaheadScorer,
  resolveSearch,
  type TestTimeSearch,
  testTimeSearchSchema,
} from './test-time-search';
export { estimateTokens } from './token-budget';
export { TURN_ZERO_WARNING_CODES, type TurnZeroCause, type TurnZeroReport } from './turn-zero-ends';
export { missingValueHead, type ValueModel, valueModelOf } from './value-model';
export { createVectorEnv, type VectorEnvOptions } from './vector-env';
