// Maze's task source. The layout is fixed, so a task is its start cell (AgentGym's game number):
// train and valid_seen are the games AgentTraj trains on, valid_unseen AgentEval's games it never shows.
import { NotFoundError, type OracleSolution, type TaskRef, type TaskSource, taskRange } from '@pilotrl/core';
import {
  type Cell,
  GOAL,
  isWall,
  MAZE_ACTIONS,
  type MazeAction,
  neighbour,
  START_CELLS,
  shortestPath,
} from './maze';
import { landmarks, planStep } from './plan-steps';

export const MAZE_ENV_ID = 'maze';

export const MAZE_TASK = `Reach the goal at position ${GOAL[0]}, ${GOAL[1]} in as few steps as possible.`;

/** AgentGym game numbers per split. */
export const mazeSplitGames = {
  /** The start cells of AgentTraj-L's maze trajectories (games 13-22; its game 25 starts on the goal). */
  train: [13, 14, 15, 16, 17, 18, 19, 20, 21, 22],
  /** AgentEval's test games that train also has. */
  valid_seen: [13, 14, 15, 16, 17, 18, 19, 20, 21, 22],
  /** AgentEval's test games that train never has. */
  valid_unseen: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 23, 24],
} as const satisfies Record<string, readonly number[]>;
export type MazeSplit = keyof typeof mazeSplitGames;

const splitNames = Object.keys(mazeSplitGames) as MazeSplit[];

function gamesOf(split: string): readonly number[] {
  if (!Object.hasOwn(mazeSplitGames, split)) {
    throw new NotFoundError(`maze: unknown split "${split}"; choose one of ${splitNames.join(', ')}`);
  }
  return mazeSplitGames[split as MazeSplit];
}

/** The AgentGym game of a task id `<split>-<index>`, or an error that says which ids exist. */
export function mazeGameOf(taskId: string): number {
  const match = /^(train|valid_seen|valid_unseen)-(0|[1-9]\d{0,5})$/.exec(taskId);
  const games = match === null ? undefined : gamesOf(match[1]!);
  const game = games?.[Number(match?.[2])];
  if (game === undefined) {
    const sizes = splitNames.map((split) => `${split} (${mazeSplitGames[split].length})`).join(', ');
    throw new NotFoundError(
      `maze: no task "${taskId}"; task ids are "<split>-<index>" with an index below the split's size: ${sizes}`,
    );
  }
  return game;
}

/** The start cell of AgentGym game `game`, or the error AgentGym gives for a game it does not have. */
export function startOfGame(game: number): Cell {
  const start = START_CELLS[game];
  if (start === undefined) {
    throw new NotFoundError(
      `maze: The game ${game} is not valid. AgentGym's games are 0-${START_CELLS.length - 1}; pass one as the reset seed or use a task id`,
    );
  }
  return start;
}

/** A shortest solution from `start`; on the goal itself, a move into a wall (which wins there). */
export function solveFrom(start: Cell): MazeAction[] {
  const path = shortestPath(start);
  if (path.length > 0) return path;
  return [MAZE_ACTIONS.find((action) => isWall(neighbour(start, action)))!];
}

export const mazeTasks: TaskSource & { oracle(task: TaskRef): Promise<OracleSolution> } = {
  envId: MAZE_ENV_ID,
  splits: () => splitNames,
  count: (split) => gamesOf(split).length,
  async tasks(split, range = {}) {
    const games = gamesOf(split);
    const { start, end } = taskRange(MAZE_ENV_ID, range, games.length);
    return games.slice(start, end).map((game, i) => ({
      taskId: `${split}-${start + i}`,
      split,
      seed: game,
      description: MAZE_TASK,
    }));
  },
  async oracle(task) {
    const start = startOfGame(mazeGameOf(task.taskId));
    const actions = solveFrom(start);
    return { actions, plan: landmarks(start, actions).map(planStep) };
  },
};
