// @pilotrl/env-alfworld: ALFWorld's text game natively in TypeScript.
export { type EngineStep, GameEngine } from './engine';
export {
  ALFWORLD_ENV_ID,
  AlfworldEnv,
  type AlfworldEnvConfig,
  alfworldEnvConfigSchema,
  createAlfworldEnv,
} from './env';
export { type CompiledGame, compileGame, type GameSources } from './game';
export {
  compileScene,
  type Dialect,
  dialectSources,
  type GameFileData,
  goalPddl,
  grammarWithTask,
  pddlName,
  writeGameFile,
  writeProblem,
} from './game-file';
export {
  floorPlanReceptacles,
  type GenerateOptions,
  generateScene,
  possibleTaskTypes,
  type Scene,
  type SceneObject,
  type SceneReceptacle,
  seenFloorPlans,
  type TaskSpec,
  taskDirectoryName,
} from './generator';
export {
  alfworldHindsight,
  goalSentence,
  type HindsightGoal,
  hindsightGoal,
  reaches,
} from './hindsight-goal';
export {
  MAX_DNF_BRANCHES,
  MAX_DNF_LITERALS,
  MAX_GAME_FILE_BYTES,
  MAX_GROUNDINGS,
  MAX_NESTING,
  MAX_OBJECTS,
} from './limits';
export {
  detectDialect,
  type LoadedGame,
  loadGame,
  loadGameFile,
  loadProblemFile,
  taskSentence,
} from './loaders';
export { alfworldNames, type Naming } from './names';
export { solveGame } from './oracle';
export { parseDomain, parseProblem } from './pddl';
export { alfworldPlanOf, alfworldPlanSteps } from './plan-steps';
export { plugin } from './plugin';
export { readActionsFile, replayFiles, replayTranscript } from './replay';
export { createAlfworldSearcher, type SearcherOptions } from './searcher';
export { alfworldStateView } from './state-view';
export {
  createDirectoryTaskSource,
  createGeneratedTaskSource,
  generatedSplits,
  generatedTask,
  generatedTaskId,
  sceneOfTaskId,
} from './task-source';
export { parseGrammarFile } from './twl2';
export {
  objectTypes,
  type RoomType,
  receptacleTypes,
  roomTypes,
  type TaskType,
  taskTypes,
  unseenFloorPlans,
} from './vocabulary';
