// The logs a run appends to (metrics, episodes, evals as JSONL, and the TensorBoard event file of
// the metrics and evals), their sizes as a checkpoint records them, and how a resumed run takes them
// back to those sizes.
import { CheckpointError } from '@pilotrl/core';
import { JsonlWriter } from './jsonl';
import type { runPaths } from './run-dir';
import { type EvalRecord, type MetricsRecord, readEvals, readMetrics } from './run-records';
import { TensorBoardLog } from './tensorboard-log';

export interface RunLogs {
  metrics: JsonlWriter;
  episodes: JsonlWriter;
  evals: JsonlWriter;
  /** Absent when the run's config turns it off (`logging.tensorboard: false`). */
  tensorboard?: TensorBoardLog;
}

export function openRunLogs(paths: ReturnType<typeof runPaths>, options = { tensorboard: true }): RunLogs {
  return {
    metrics: new JsonlWriter(paths.metrics),
    episodes: new JsonlWriter(paths.episodes),
    evals: new JsonlWriter(paths.evals),
    ...(options.tensorboard ? { tensorboard: new TensorBoardLog(paths.tensorboard) } : {}),
  };
}

/** Appends an iteration's metrics line to metrics.jsonl and the event file. */
export function logMetrics(logs: RunLogs, record: MetricsRecord): void {
  logs.metrics.append(record);
  logs.tensorboard?.appendMetrics(record);
}

/** Appends an evaluation to evals.jsonl and the event file. */
export function logEval(logs: RunLogs, record: EvalRecord): void {
  logs.evals.append(record);
  logs.tensorboard?.appendEval(record);
}

/** Each log's length in bytes, by name: what a checkpoint records as `logBytes`. */
export function logSizes(logs: RunLogs): Record<string, number> {
  return Object.fromEntries(
    Object.entries(logs).flatMap(([name, writer]) => (writer === undefined ? [] : [[name, writer.size()]])),
  );
}

/**
 * Truncates each log to the length a checkpoint recorded, dropping what a killed run wrote after it.
 * The event file, derived from metrics.jsonl and evals.jsonl, is written anew from them where the
 * checkpoint recorded no length for it (a run from before it was kept, a fork of one) or it holds
 * less than recorded; returns a line saying so then.
 */
export function rewindLogs(logs: RunLogs, logBytes: Record<string, number>): string | undefined {
  const { tensorboard, ...jsonl } = logs;
  for (const [name, writer] of Object.entries(jsonl)) {
    const recorded = logBytes[name] ?? 0;
    // A log shorter than at the checkpoint lost records; resuming would leave a hole in it.
    if (writer.size() < recorded) {
      throw new CheckpointError(
        `${writer.path} holds ${writer.size()} bytes, fewer than the ${recorded} it held at the checkpoint: the run directory was changed since, so the run cannot be resumed exactly; start a new run`,
      );
    }
    writer.truncateTo(recorded);
  }
  if (tensorboard === undefined) return undefined;
  const recorded = logBytes.tensorboard;
  if (recorded !== undefined && tensorboard.size() >= recorded) {
    tensorboard.truncateTo(recorded);
    return undefined;
  }
  tensorboard.rebuild(readMetrics(logs.metrics.path), readEvals(logs.evals.path));
  return `tensorboard: ${tensorboard.path} written anew from metrics.jsonl and evals.jsonl (the checkpoint recorded no length for it, or it had lost records)`;
}
