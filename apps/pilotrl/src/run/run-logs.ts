// The JSONL logs a run appends to (metrics, episodes, evals), their sizes as a checkpoint records
// them, and how a resumed run takes them back to those sizes.
import { CheckpointError } from '@pilotrl/core';
import { JsonlWriter } from './jsonl';
import type { runPaths } from './run-dir';

export interface RunLogs {
  metrics: JsonlWriter;
  episodes: JsonlWriter;
  evals: JsonlWriter;
}

export function openRunLogs(paths: ReturnType<typeof runPaths>): RunLogs {
  return {
    metrics: new JsonlWriter(paths.metrics),
    episodes: new JsonlWriter(paths.episodes),
    evals: new JsonlWriter(paths.evals),
  };
}

/** Each log's length in bytes, by name: what a checkpoint records as `logBytes`. */
export function logSizes(logs: RunLogs): Record<string, number> {
  return Object.fromEntries(Object.entries(logs).map(([name, writer]) => [name, writer.size()]));
}

/** Truncates each log to the length a checkpoint recorded, dropping what a killed run wrote after it. */
export function rewindLogs(logs: RunLogs, logBytes: Record<string, number>): void {
  for (const [name, writer] of Object.entries(logs)) {
    const recorded = logBytes[name] ?? 0;
    // A log shorter than at the checkpoint lost records; resuming would leave a hole in it.
    if (writer.size() < recorded) {
      throw new CheckpointError(
        `${writer.path} holds ${writer.size()} bytes, fewer than the ${recorded} it held at the checkpoint: the run directory was changed since, so the run cannot be resumed exactly; start a new run`,
      );
    }
    writer.truncateTo(recorded);
  }
}
