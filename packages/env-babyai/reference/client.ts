// Drives reference/drive-minigrid.py (Minigrid from PyPI, the original engine, with no text layer)
// from TypeScript: jobs go in as JSON lines, the engine's state after reset and after every primitive
// action comes back parsed. Used by the differential test, the level generator and the benchmark.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PilotRLError, parseOrThrow } from '@pilotrl/core';
import { z } from 'zod';

const referenceDir = import.meta.dirname;
const repoRoot = resolve(referenceDir, '../../..');

/** The venv that `reference/setup.sh` creates. */
export const referenceVenv = join(repoRoot, '.venv', 'babyai-reference');
export const referencePython = join(referenceVenv, 'bin', 'python');
/** The command that installs the reference engine, relative to the repository root. */
export const referenceSetupCommand = 'packages/env-babyai/reference/setup.sh';
const driverScript = join(referenceDir, 'drive-minigrid.py');

export class ReferenceEngineError extends PilotRLError {
  static override readonly errorName = 'ReferenceEngineError';
}

/** Whether the reference engine is installed (setup.sh finished: its stamp file exists). */
export function referenceInstalled(): boolean {
  return existsSync(referencePython) && existsSync(join(referenceVenv, '.requirements.sha256'));
}

/** Minigrid's primitive actions by name (`minigrid.core.actions.Actions`). */
export type PrimitiveName = 'left' | 'right' | 'forward' | 'pickup' | 'drop' | 'toggle' | 'done';

export interface MinigridJob {
  id: string;
  /** Minigrid's level name, e.g. `BabyAI-GoToRedBall-v0`. */
  level: string;
  /** `env.reset(seed=seed)`. */
  seed: number;
  actions: readonly PrimitiveName[];
  /** Minigrid's `step_count` set after reset, as if that many steps had been taken (default 0). */
  step_count?: number;
}

/** Rows of three-digit cells (object, colour, state), as `grid_rows` in `levels.jsonl`. */
const encodedRows = z.array(z.string());

const minigridStateSchema = z.object({
  /** The action that led here; null for the state after reset. */
  action: z.string().nullable(),
  agent_pos: z.tuple([z.number().int(), z.number().int()]),
  agent_dir: z.number().int(),
  /** The carried object's encoding, or null. */
  carrying: z.tuple([z.number().int(), z.number().int(), z.number().int()]).nullable(),
  /** `grid.encode()`: `grid[y]` lists x = 0 … width-1. */
  grid: encodedRows,
  /** The observation's 7×7 image: `image[j]` lists i = 0 … 6; the agent is at i = 3, j = 6. */
  image: encodedRows,
  mission: z.string(),
  reward: z.number(),
  terminated: z.boolean(),
  truncated: z.boolean(),
});
export type MinigridState = z.infer<typeof minigridStateSchema>;

const minigridEpisodeSchema = z.object({
  id: z.string(),
  /** The start state in the shape of `levels.jsonl`. */
  start: z.record(z.string(), z.unknown()),
  /** What the start state format cannot hold (the episode is then not comparable). */
  unsupported: z.array(z.string()),
  /** The state after reset, then after each action. */
  states: z.array(minigridStateSchema),
});
export type MinigridEpisode = z.infer<typeof minigridEpisodeSchema>;

/** Plays `jobs` in one Python process and returns one episode per job, in order. */
export function driveMinigrid(jobs: readonly MinigridJob[]): Promise<MinigridEpisode[]> {
  return new Promise((resolvePromise, reject) => {
    const child = execFile(
      referencePython,
      [driverScript],
      { maxBuffer: 1024 * 1024 * 1024, encoding: 'utf8' },
      (error, stdout, stderr) => {
        if (error !== null) {
          reject(
            new ReferenceEngineError(
              `reference/drive-minigrid.py failed: ${error.message}\n${stderr.slice(-2000)}\nIs the venv current? Run ${referenceSetupCommand}`,
            ),
          );
          return;
        }
        const lines = stdout.split('\n').filter((line) => line.trim() !== '');
        resolvePromise(
          lines.map((line, i) =>
            parseOrThrow(minigridEpisodeSchema, JSON.parse(line), `drive-minigrid.py episode ${i}`),
          ),
        );
      },
    );
    child.stdin?.end(`${jobs.map((job) => JSON.stringify(job)).join('\n')}\n`);
  });
}

/** Primitive steps per second of Minigrid's `env.step` under uniformly random primitive actions. */
export function minigridStepsPerSecond(level: string, seed: number, steps: number, rng: number): number {
  const output = execFileSync(
    referencePython,
    [driverScript, '--bench', level, String(seed), String(steps), String(rng)],
    { encoding: 'utf8' },
  );
  return parseOrThrow(z.object({ steps_per_second: z.number() }), JSON.parse(output), 'minigrid bench')
    .steps_per_second;
}
