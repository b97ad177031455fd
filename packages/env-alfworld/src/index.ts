// @pilotrl/env-alfworld: ALFWorld's text game natively in TypeScript.

export { type EngineStep, GameEngine } from './engine';
export { type CompiledGame, compileGame, type GameSources } from './game';
export {
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
export { alfworldNames, type Naming } from './names';
export { solveGame } from './oracle';
export { parseDomain, parseProblem } from './pddl';
export { parseGrammarFile } from './twl2';
export * from './vocabulary';
