// The double-T maze of LMRL-Gym as AgentGym sets it up: walls, moves, and the description of a cell
// (AgentGym's `describe_observation` with the current position shown, the start not).
import { AGENTGYM_START_POSITIONS, DOUBLE_T_MAZE, MAZE_GOAL } from './data/double-t-maze';

export type Cell = readonly [row: number, column: number];

/** The commands the server accepts, in AgentGym's `available_actions` order. */
export const MAZE_ACTIONS = ['move left', 'move right', 'move up', 'move down'] as const;
export type MazeAction = (typeof MAZE_ACTIONS)[number];

const deltas: Record<MazeAction, Cell> = {
  'move left': [0, -1],
  'move right': [0, 1],
  'move up': [-1, 0],
  'move down': [1, 0],
};

export const GOAL: Cell = MAZE_GOAL;
export const START_CELLS: readonly Cell[] = AGENTGYM_START_POSITIONS;

export const isMazeAction = (action: string): action is MazeAction => Object.hasOwn(deltas, action);

export const isWall = ([row, column]: Cell) => DOUBLE_T_MAZE[row]?.[column] !== '0';

export const sameCell = (a: Cell, b: Cell) => a[0] === b[0] && a[1] === b[1];

/** The open cells in reading order. */
export const OPEN_CELLS: readonly Cell[] = DOUBLE_T_MAZE.flatMap((line, row) =>
  [...line].flatMap((wall, column): Cell[] => (wall === '0' ? [[row, column]] : [])),
);

/** The cell next to `cell` in the direction of `action`, wall or not. */
export function neighbour(cell: Cell, action: MazeAction): Cell {
  const [dRow, dColumn] = deltas[action];
  return [cell[0] + dRow, cell[1] + dColumn];
}

/** Where `action` leads from `cell`: the neighbour, or `cell` itself for a wall or an unknown command. */
export function move(cell: Cell, action: string): Cell {
  if (!isMazeAction(action)) return cell;
  const next = neighbour(cell, action);
  return isWall(next) ? cell : next;
}

// LMRL-Gym's order: right, left, up, down.
const wallChecks: readonly [string, Cell][] = [
  ['to your right', [0, 1]],
  ['to your left', [0, -1]],
  ['above you', [-1, 0]],
  ['below you', [1, 0]],
];

/** `describe_objects("wall", ...)`: the walls around `cell`. */
export function describeWalls(cell: Cell): string {
  const walls = wallChecks
    .filter(([, [dRow, dColumn]]) => isWall([cell[0] + dRow, cell[1] + dColumn]))
    .map(([relation]) => relation);
  if (walls.length === 0) return 'There are no walls near you.';
  if (walls.length === 1) return `There is a wall ${walls[0]}.`;
  return `There are walls ${walls.join(', ')}.`;
}

/** What the server says of `cell` (without AgentTraj's trailing newline). */
export function describeCell(cell: Cell): string {
  return (
    `The goal is at position ${GOAL[0]}, ${GOAL[1]}. ` +
    `Your current position is at position ${cell[0]}, ${cell[1]}. ${describeWalls(cell)}`
  );
}

/** A shortest list of moves from `start` to the goal (breadth-first, moves in `MAZE_ACTIONS` order). */
export function shortestPath(start: Cell): MazeAction[] {
  const key = (cell: Cell) => `${cell[0]},${cell[1]}`;
  const previous = new Map<string, [Cell, MazeAction]>();
  const queue: Cell[] = [start];
  const seen = new Set([key(start)]);
  for (let at = 0; at < queue.length && !seen.has(key(GOAL)); at++) {
    const cell = queue[at]!;
    for (const action of MAZE_ACTIONS) {
      const next = move(cell, action);
      if (seen.has(key(next))) continue;
      seen.add(key(next));
      previous.set(key(next), [cell, action]);
      queue.push(next);
    }
  }
  const actions: MazeAction[] = [];
  for (let cell = GOAL; !sameCell(cell, start); ) {
    const [from, action] = previous.get(key(cell))!;
    actions.unshift(action);
    cell = from;
  }
  return actions;
}
