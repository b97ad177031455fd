// The embedded layout against shared/env-data's transcription of LMRL-Gym's double_t_maze (grid,
// goal, AgentGym's 26 start cells) and LMRL-Gym's optimal move per cell, which the oracle must make.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { envDataDir, fixture } from '../../../tooling/env-data';
import { AGENTGYM_START_POSITIONS, DOUBLE_T_MAZE, MAZE_GOAL, solveFrom } from '../src/index';

const layoutSchema = z.object({
  grid_row_major: z.array(z.array(z.number())),
  goal: z.tuple([z.number(), z.number()]),
  agentgym_start_positions_by_game: z.array(z.tuple([z.number(), z.number()])),
  optimal_action_by_position: z.record(z.string(), z.string()),
});

const path = fixture('maze/derived__abdulhaim__LMRL-Gym@83abeed/double_t_maze.json');

describe.skipIf(path === undefined)(
  `double_t_maze layout${path === undefined ? ` (skipped: no fixtures under ${envDataDir})` : ''}`,
  () => {
    const layout =
      path === undefined ? undefined : layoutSchema.parse(JSON.parse(readFileSync(path, 'utf8')));

    it('has the grid, the goal and the start cells of the reference', () => {
      expect(DOUBLE_T_MAZE.map((line) => [...line].map(Number))).toEqual(layout!.grid_row_major);
      expect(MAZE_GOAL).toEqual(layout!.goal);
      expect(AGENTGYM_START_POSITIONS).toEqual(layout!.agentgym_start_positions_by_game);
    });

    it("makes LMRL-Gym's optimal first move from every open cell but the goal", () => {
      for (const [cell, action] of Object.entries(layout!.optimal_action_by_position)) {
        const [x, y] = cell.split(',').map(Number) as [number, number];
        expect(solveFrom([x, y])[0], cell).toBe(action);
      }
    });
  },
);
