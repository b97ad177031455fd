// Replays all 215 AgentTraj-L maze trajectories of shared/env-data (PilotRL's copy, thoughts removed):
// every first observation and every observation after an action must be the one the data has, and
// the last action must win with reward 1. AgentTraj's text is the `agenttraj` dialect.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { envDataDir, fixture } from '../../../tooling/env-data';
import { createMazeEnv, MAZE_SYSTEM_PROMPT } from '../src/index';

const trajectorySchema = z.object({
  item_id: z.string().regex(/^lmrlgym_maze_\d+$/),
  system_prompt: z.string(),
  initial_observation: z.string(),
  steps: z.array(z.object({ action: z.string(), observation: z.string().nullable() })).min(1),
});

const path = fixture('maze/8023looker__PilotRL@c64319c/replay.jsonl');

describe.skipIf(path === undefined)(
  `AgentTraj-L maze replay${path === undefined ? ` (skipped: no fixtures under ${envDataDir})` : ''}`,
  () => {
    const lines =
      path === undefined
        ? []
        : readFileSync(path, 'utf8')
            .split('\n')
            .filter((line) => line !== '');
    const trajectories = lines.slice(1).map((line) => trajectorySchema.parse(JSON.parse(line)));

    it('replays every trajectory with identical observations and a final reward of 1', async () => {
      const env = createMazeEnv({ dialect: 'agenttraj', maxSteps: 50 });
      const mismatches: string[] = [];
      let observations = 0;
      for (const [n, trajectory] of trajectories.entries()) {
        const game = Number(trajectory.item_id.split('_').at(-1));
        const where = `line ${n + 2} (${trajectory.item_id})`;
        if (trajectory.system_prompt !== MAZE_SYSTEM_PROMPT) mismatches.push(`${where}: system prompt`);
        let result = await env.reset({ seed: game });
        observations++;
        if (result.observation !== trajectory.initial_observation)
          mismatches.push(`${where}: first observation`);
        for (const [i, step] of trajectory.steps.entries()) {
          result = await env.step(step.action);
          if (step.observation === null) continue;
          observations++;
          if (result.observation !== step.observation) {
            mismatches.push(
              `${where} step ${i + 1}: ${JSON.stringify(result.observation)} vs ${JSON.stringify(step.observation)}`,
            );
          }
        }
        if (!(result.terminated && result.reward === 1 && result.info.won)) {
          mismatches.push(`${where}: ended with reward ${result.reward}, terminated ${result.terminated}`);
        }
      }
      expect(mismatches).toEqual([]);
      expect(trajectories).toHaveLength(215);
      console.log(
        `maze replay: ${trajectories.length} trajectories, ${observations} observations, 0 mismatches`,
      );
    });
  },
);
