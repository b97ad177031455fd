export { CORRIDOR_ENV_ID, corridorGame, corridorTasks, createCorridorEnv } from './corridor';
export {
  buildEnvChecks,
  type EnvCheck,
  EnvCheckError,
  type EnvCheckOptions,
  type EnvCheckResult,
  envCheckOptionsSchema,
  runEnvChecks,
} from './env-checks';
export { createKeyDoorEnv, KEY_DOOR_ENV_ID, keyDoorGame, keyDoorTasks } from './key-door';
export { createRecipeEnv, RECIPE_ENV_ID, recipeGame, recipeTasks } from './recipe';
export {
  checkStateCopies,
  type StateCopyCheckOptions,
  stateCopyCheckOptionsSchema,
} from './state-copy-checks';
export { measureStepRate, playRandomEpisodes, type RandomPlayOptions, type StepRate } from './step-rate';
export { plugin, type TestkitEnv, testkitEnvs } from './testkit-envs';
export {
  createToyEnv,
  createToyTaskSource,
  INVALID_ACTION_OBSERVATION,
  TOY_SPLIT_SIZES,
  TOY_SPLITS,
  type ToyEnvConfig,
  type ToyGame,
  type ToyOutcome,
  type ToySplit,
  type ToyTaskSource,
  toyEnvConfigSchema,
} from './toy-game';
