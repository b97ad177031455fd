// @pilotrl/env-babyai: AgentGym's text BabyAI (Minigrid's BabyAI levels), natively in TypeScript.

export {
  AgentGymBabyAI,
  availableActionsSuffix,
  type CommandOutcome,
  EMPTY_COMMAND,
  TASK_COMPLETED,
  UNKNOWN_COMMAND,
} from './agentgym';
export { AGENTGYM_ACKNOWLEDGEMENT, BABYAI_SYSTEM_PROMPT } from './data/client-prompts';
export { type BabyaiConfig, babyaiConfigSchema, createBabyaiEnv } from './env';
export { GENERATED_LEVELS, generateLevel } from './generator';
export { goalOf, type LevelState, levelStateSchema, parseLevelFile, parseLevelState } from './level';
export { planPrimitives, solveLevel } from './oracle';
export { babyaiPlanOf, babyaiPlanSteps } from './plan-steps';
export { plugin } from './plugin';
export { AGENTGYM_DATA_LEVELS, AGENTGYM_LEVELS, BABYAI_SPLIT_PLAN, type BabyaiSplit } from './splits';
export {
  BABYAI_ENV_ID,
  type BabyaiTaskSource,
  babyaiDataIndexOf,
  babyaiLevel,
  babyaiSplitSize,
  babyaiTaskOf,
  babyaiTasks,
  createBabyaiTasks,
  GENERATED_SPLIT,
  generatedTaskOf,
} from './tasks';
