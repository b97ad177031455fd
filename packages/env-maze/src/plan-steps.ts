// Maze's plan-step vocabulary: `go to <x>, <y>` for every open cell. A plan names the cells where the
// way turns and the goal; a step is carried out by the move that arrives on its cell.
import type { PlanStepVocabulary } from '@pilotrl/core';
import { type Cell, GOAL, isMazeAction, move, OPEN_CELLS, START_CELLS, sameCell } from './maze';

export const planStep = (cell: Cell) => `go to ${cell[0]}, ${cell[1]}`;

const cellOfStep = (step: string): Cell | undefined => {
  const match = /^go to (\d+), (\d+)$/.exec(step);
  return match === null ? undefined : [Number(match[1]), Number(match[2])];
};

/** The cells where the way from `start` along `actions` turns, and the cell it ends on. */
export function landmarks(start: Cell, actions: readonly string[]): Cell[] {
  const cells: Cell[] = [];
  let at = start;
  let heading: string | undefined;
  for (const action of actions) {
    const next = move(at, action);
    if (sameCell(next, at)) continue;
    if (heading !== undefined && heading !== action) cells.push(at);
    heading = action;
    at = next;
  }
  cells.push(at);
  return cells;
}

/** Walls bumped into on the way, or undefined when `actions` do not win exactly at their last one. */
function bumpsToWin(start: Cell, actions: readonly string[]): number | undefined {
  let at = start;
  let bumps = 0;
  for (const [i, action] of actions.entries()) {
    const next = move(at, action);
    if (sameCell(next, at)) bumps++;
    at = next;
    if (sameCell(at, GOAL)) return i === actions.length - 1 ? bumps : undefined;
  }
  return undefined;
}

export const mazePlanSteps: PlanStepVocabulary = {
  steps: () => OPEN_CELLS.map(planStep),

  executes(step, action, observation) {
    const cell = cellOfStep(step);
    if (cell === undefined || !isMazeAction(action)) return false;
    if (sameCell(cell, GOAL)) return observation.startsWith('Success');
    return observation.includes(`Your current position is at position ${cell[0]}, ${cell[1]}.`);
  },

  /**
   * The commands alone do not say where they started, so the start is the AgentGym start cell from
   * which they win exactly at their last command, bumping into the fewest walls (the first such
   * game on a tie); no plan when there is none.
   */
  planOf(actions) {
    let best: { start: Cell; bumps: number } | undefined;
    for (const start of START_CELLS) {
      const bumps = bumpsToWin(start, actions);
      if (bumps !== undefined && (best === undefined || bumps < best.bumps)) best = { start, bumps };
    }
    return best === undefined ? [] : landmarks(best.start, actions).map(planStep);
  },
};
