// Atomic training checkpoints. A checkpoint is a directory (trainer state + the policy's own saved
// state) written under a temporary name and renamed into place; `latest` is a pointer file updated
// the same way, so a kill at any moment leaves the previous checkpoint intact. Each is flushed to
// the disk before the next step depends on it, so a power loss leaves the previous one intact too.
// trainer.json carries the SHA-256 of its own content and of phase-state.json, so a damaged
// checkpoint is refused instead of resuming from altered state.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  CheckpointError,
  describeIssues,
  printable,
  type RngState,
  type TrainablePolicy,
} from '@pilotrl/core';
import { z } from 'zod';
import { fsyncDir, fsyncFile, runPaths, sha256, writeFileAtomic, writeFileDurable } from './run-dir';

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
  /**
   * CPU seconds the training phases took so far (rollouts, rewards, updates; evaluations not
   * counted). Absent in checkpoints written before it was kept.
   */
  trainCpuSeconds: z.number().nonnegative().optional(),
});
/**
 * trainer.json: the trainer state, the SHA-256 of phase-state.json when there is one, and the
 * SHA-256 of all that (as compact JSON). Checkpoints written before the checksums lack them and are
 * read unchecked.
 */
const trainerFileSchema = trainerStateSchema.extend({
  phaseStateSha256: z.string().length(64).optional(),
  sha256: z.string().length(64).optional(),
});

/** The SHA-256 of trainer.json's content without its own checksum. */
function trainerDigest(content: object): string {
  const { sha256: _own, ...rest } = content as Record<string, unknown>;
  return sha256(JSON.stringify(rest));
}

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

/** Where the checkpoint written at `globalIteration` lies (it may have been pruned since). */
export const checkpointDirAt = (checkpointsDir: string, globalIteration: number): string =>
  join(checkpointsDir, checkpointName(globalIteration));
const CHECKPOINT_NAME = /^iter-\d{6,}$/;

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
  for (const log of [logs.metrics, logs.episodes, logs.evals, logs.tensorboard]) {
    if (existsSync(log)) fsyncFile(log);
  }
  await policy.saveState(join(tempDir, 'policy'));
  const { phaseState, ...trainer } = state;
  const phaseText = phaseState === undefined ? undefined : JSON.stringify(phaseState);
  if (phaseText !== undefined) writeFileDurable(join(tempDir, PHASE_STATE), phaseText);
  const recorded = {
    ...trainer,
    ...(phaseText === undefined ? {} : { phaseStateSha256: sha256(phaseText) }),
  };
  const content = { ...recorded, sha256: trainerDigest(recorded) };
  writeFileDurable(join(tempDir, 'trainer.json'), `${JSON.stringify(content, null, 2)}\n`);
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
  let name: string;
  try {
    name = readFileSync(pointer, 'utf8').trim();
  } catch (cause) {
    throw new CheckpointError(`Cannot read ${pointer}: ${(cause as Error).message}`, { cause });
  }
  if (!CHECKPOINT_NAME.test(name)) {
    throw new CheckpointError(
      `${pointer} is damaged: it holds "${printable(name, 60)}" where the name of a checkpoint (iter-NNNNNN) belongs`,
    );
  }
  const dir = join(checkpointsDir, name);
  if (!existsSync(join(dir, 'trainer.json'))) {
    throw new CheckpointError(
      `${pointer} names ${dir}, which holds no trainer.json; the run directory is damaged`,
    );
  }
  return dir;
}

/** Reads a checkpoint's trainer state, checking it and its phase state against their checksums. */
export function readTrainerState(checkpointDir: string): TrainerState {
  const path = join(checkpointDir, 'trainer.json');
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (cause) {
    throw new CheckpointError(`Cannot read ${path}: ${printable((cause as Error).message)}`, { cause });
  }
  const recorded = typeof raw === 'object' && raw !== null ? (raw as { sha256?: unknown }).sha256 : undefined;
  if (recorded !== undefined && recorded !== trainerDigest(raw as object)) {
    throw new CheckpointError(
      `${path} is damaged: it was changed after it was written (its SHA-256 does not match)`,
    );
  }
  const parsed = trainerFileSchema.safeParse(raw);
  if (!parsed.success) {
    throw new CheckpointError(
      `${path} is not a trainer state of format ${CHECKPOINT_FORMAT}: ${describeIssues(parsed.error.issues).join('; ')}`,
    );
  }
  const { sha256: checksum, phaseStateSha256, ...state } = parsed.data;
  const [a, b, c, d] = state.rngState as [number, number, number, number];
  const phasePath = join(checkpointDir, PHASE_STATE);
  // A checksummed trainer.json says whether there is a phase state; an older one is read as it stands.
  const hasPhaseState = checksum === undefined ? existsSync(phasePath) : phaseStateSha256 !== undefined;
  let phaseState: unknown;
  if (hasPhaseState) {
    let text: string;
    try {
      text = readFileSync(phasePath, 'utf8');
    } catch (cause) {
      throw new CheckpointError(`Cannot read ${phasePath}: ${(cause as Error).message}`, { cause });
    }
    if (phaseStateSha256 !== undefined && sha256(text) !== phaseStateSha256) {
      throw new CheckpointError(
        `${phasePath} is damaged: its SHA-256 does not match the one trainer.json records`,
      );
    }
    try {
      phaseState = JSON.parse(text);
    } catch (cause) {
      throw new CheckpointError(`Cannot read ${phasePath}: ${printable((cause as Error).message)}`, {
        cause,
      });
    }
  }
  return { ...state, rngState: [a, b, c, d], ...(phaseState === undefined ? {} : { phaseState }) };
}

/** Whether the run at `runDir` has trained all `phases` of its curriculum (its latest checkpoint says so). */
export function runFinished(runDir: string, phases: number): boolean {
  const checkpoint = existsSync(runPaths(runDir).manifest)
    ? latestCheckpoint(runPaths(runDir).checkpoints)
    : undefined;
  return checkpoint !== undefined && readTrainerState(checkpoint).phase >= phases;
}
