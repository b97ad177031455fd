// Atomic training checkpoints. A checkpoint is a directory (trainer state + the policy's own saved
// state) written under a temporary name and renamed into place; `latest` is a pointer file updated
// the same way, so a kill at any moment leaves the previous checkpoint intact. Each is flushed to
// the disk before the next step depends on it, so a power loss leaves the previous one intact too.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CheckpointError, type RngState, type TrainablePolicy } from '@pilotrl/core';
import { z } from 'zod';
import { fsyncDir, fsyncFile, runPaths, writeFileAtomic, writeFileDurable } from './run-dir';

export const CHECKPOINT_FORMAT = 1;

export const trainerStateSchema = z.object({
  format: z.literal(CHECKPOINT_FORMAT),
  /** Index of the phase being trained (SFT is phase 0 when configured, then the stages). */
  phase: z.number().int().nonnegative(),
  /** Iterations of that phase completed. */
  iteration: z.number().int().nonnegative(),
  /** Iterations completed over the whole run. */
  globalIteration: z.number().int().nonnegative(),
  rngState: z.array(z.number().int().nonnegative()).length(4),
  policyVersion: z.number().int().nonnegative(),
  /** Byte lengths of the JSONL logs at checkpoint time; a resume truncates them back. */
  logBytes: z.record(z.string(), z.number().int().nonnegative()),
});
export type TrainerState = Omit<z.infer<typeof trainerStateSchema>, 'rngState'> & {
  rngState: RngState;
  /**
   * What the phase in progress carries between iterations (expert iteration's kept steps), saved
   * beside trainer.json as phase-state.json; absent at phase boundaries and for stateless phases.
   */
  phaseState?: unknown;
};

const PHASE_STATE = 'phase-state.json';

const checkpointName = (globalIteration: number) => `iter-${String(globalIteration).padStart(6, '0')}`;

/**
 * Saves `state` and `policy` as the checkpoint of `state.globalIteration` in `checkpointsDir` (a run
 * directory's `checkpoints`), points `latest` at it and keeps the newest `keep`. The run's logs are
 * flushed first, so the lengths `state.logBytes` records are on the disk when the checkpoint is.
 * The policy's `saveState` flushes what it writes.
 */
export async function saveCheckpoint(
  checkpointsDir: string,
  state: TrainerState,
  policy: TrainablePolicy,
  keep: number,
): Promise<string> {
  mkdirSync(checkpointsDir, { recursive: true });
  const name = checkpointName(state.globalIteration);
  const finalDir = join(checkpointsDir, name);
  const tempDir = join(checkpointsDir, `.tmp-${name}-${process.pid}`);
  rmSync(tempDir, { recursive: true, force: true });
  mkdirSync(tempDir, { recursive: true });
  const logs = runPaths(dirname(checkpointsDir));
  for (const log of [logs.metrics, logs.episodes, logs.evals]) if (existsSync(log)) fsyncFile(log);
  await policy.saveState(join(tempDir, 'policy'));
  const { phaseState, ...trainer } = state;
  if (phaseState !== undefined) writeFileDurable(join(tempDir, PHASE_STATE), JSON.stringify(phaseState));
  writeFileDurable(join(tempDir, 'trainer.json'), `${JSON.stringify(trainer, null, 2)}\n`);
  fsyncDir(tempDir);
  rmSync(finalDir, { recursive: true, force: true });
  renameSync(tempDir, finalDir);
  fsyncDir(checkpointsDir);
  writeFileAtomic(join(checkpointsDir, 'latest'), `${name}\n`);
  const old = readdirSync(checkpointsDir)
    .filter((entry) => entry.startsWith('iter-') && entry !== name)
    .sort();
  for (const entry of old.slice(0, Math.max(0, old.length - (keep - 1)))) {
    rmSync(join(checkpointsDir, entry), { recursive: true, force: true });
  }
  return finalDir;
}

/** The latest complete checkpoint directory of a run, or undefined when there is none. */
export function latestCheckpoint(checkpointsDir: string): string | undefined {
  const pointer = join(checkpointsDir, 'latest');
  if (!existsSync(pointer)) return undefined;
  const dir = join(checkpointsDir, readFileSync(pointer, 'utf8').trim());
  if (!existsSync(join(dir, 'trainer.json'))) {
    throw new CheckpointError(
      `${pointer} names ${dir}, which holds no trainer.json; the run directory is damaged`,
    );
  }
  return dir;
}

export function readTrainerState(checkpointDir: string): TrainerState {
  const path = join(checkpointDir, 'trainer.json');
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (cause) {
    throw new CheckpointError(`Cannot read ${path}: ${(cause as Error).message}`, { cause });
  }
  const parsed = trainerStateSchema.safeParse(raw);
  if (!parsed.success) {
    throw new CheckpointError(
      `${path} is not a trainer state of format ${CHECKPOINT_FORMAT}: ${parsed.error.message}`,
    );
  }
  const [a, b, c, d] = parsed.data.rngState as [number, number, number, number];
  const phasePath = join(checkpointDir, PHASE_STATE);
  let phaseState: unknown;
  if (existsSync(phasePath)) {
    try {
      phaseState = JSON.parse(readFileSync(phasePath, 'utf8'));
    } catch (cause) {
      throw new CheckpointError(`Cannot read ${phasePath}: ${(cause as Error).message}`, { cause });
    }
  }
  return { ...parsed.data, rngState: [a, b, c, d], ...(phaseState === undefined ? {} : { phaseState }) };
}
