// @pilotrl/env-maze: LMRL-Gym's Maze as AgentGym serves it, natively in TypeScript.

export {
  AGENTGYM_ACKNOWLEDGEMENT,
  MAZE_FIRST_OBSERVATION_PROMPT,
  MAZE_SYSTEM_PROMPT,
} from './data/client-prompts';
export { AGENTGYM_START_POSITIONS, DOUBLE_T_MAZE, MAZE_GOAL } from './data/double-t-maze';
export {
  createMazeEnv,
  MAZE_ENGINE_STEPS,
  type MazeConfig,
  mazeConfigSchema,
  mazeFirstObservation,
} from './env';
export {
  type Cell,
  describeCell,
  describeWalls,
  MAZE_ACTIONS,
  type MazeAction,
  move,
  OPEN_CELLS,
  shortestPath,
} from './maze';
export { landmarks, mazePlanSteps } from './plan-steps';
export { plugin } from './plugin';
export {
  MAZE_ENV_ID,
  MAZE_TASK,
  type MazeSplit,
  mazeGameOf,
  mazeSplitGames,
  mazeTasks,
  solveFrom,
  startOfGame,
} from './tasks';
