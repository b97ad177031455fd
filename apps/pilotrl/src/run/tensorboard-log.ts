// The run's TensorBoard log: every number of each metrics line and each evaluation, as scalars of
// one event file beside metrics.jsonl, so `tensorboard --logdir runs` shows every run. Appended
// record by record like the JSONL logs (one write per record, so a killed run loses at most the
// record it was writing), flushed with them at each checkpoint, and rewound with them on resume.
import { appendFileSync, existsSync, readFileSync, statSync, truncateSync } from 'node:fs';
import { writeFileAtomic } from './run-dir';
import type { EvalRecord, MetricsRecord } from './run-records';
import {
  encodeEvent,
  FILE_VERSION,
  frameRecord,
  readEvents,
  type ScalarValue,
  type TfEvent,
} from './tfevents';

/** Every finite number of a metrics line but its step, under the line's own key. */
export function metricsScalars(record: MetricsRecord): ScalarValue[] {
  return Object.entries(record)
    .filter(([key, value]) => key !== 'step' && typeof value === 'number' && Number.isFinite(value))
    .map(([tag, value]) => ({ tag, value: value as number }));
}

/** The numbers of `value` and the objects inside it, by their path of keys (arrays left out). */
function numbersOf(value: unknown, path: string, out: ScalarValue[]): ScalarValue[] {
  if (typeof value === 'number' && Number.isFinite(value)) out.push({ tag: path, value });
  else if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    for (const [key, inner] of Object.entries(value)) numbersOf(inner, `${path}/${key}`, out);
  }
  return out;
}

/**
 * Every number of an evaluation record but its step, under `eval/[<env>/]<split>/` and the path of
 * keys to it (`eval/valid_unseen/success/rate`); per-turn buckets (arrays) are left out.
 */
export function evalScalars(record: EvalRecord): ScalarValue[] {
  const { step: _step, env, split, ...figures } = record;
  return numbersOf(figures, ['eval', ...(env === undefined ? [] : [env]), split].join('/'), []);
}

export class TensorBoardLog {
  constructor(
    readonly path: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** Current length in bytes (0 when the file does not exist yet). */
  size(): number {
    return existsSync(this.path) ? statSync(this.path).size : 0;
  }

  truncateTo(bytes: number): void {
    if (existsSync(this.path)) truncateSync(this.path, bytes);
  }

  appendMetrics(record: MetricsRecord): void {
    this.append(record.step, metricsScalars(record));
  }

  appendEval(record: EvalRecord): void {
    this.append(record.step, evalScalars(record));
  }

  /**
   * Writes the file anew from a run's records (an evaluation before the metrics line of its step, as
   * a run writes them), replacing what it held at once: for a run whose checkpoint predates the file.
   */
  rebuild(metrics: readonly MetricsRecord[], evals: readonly EvalRecord[]): void {
    const wallTime = this.now() / 1000;
    const events: TfEvent[] = [
      ...evals.map((record) => ({ step: record.step, order: 0, scalars: evalScalars(record) })),
      ...metrics.map((record) => ({ step: record.step, order: 1, scalars: metricsScalars(record) })),
    ]
      .sort((a, b) => a.step - b.step || a.order - b.order)
      .map(({ step, scalars }) => ({ wallTime, step, scalars }));
    const records = [this.header(), ...events].map((event) => frameRecord(encodeEvent(event)));
    writeFileAtomic(this.path, Buffer.concat(records));
  }

  /** The events the file holds, read back. */
  read(): TfEvent[] {
    return existsSync(this.path) ? readEvents(readFileSync(this.path), this.path) : [];
  }

  private header(): TfEvent {
    return { wallTime: this.now() / 1000, step: 0, fileVersion: FILE_VERSION };
  }

  private append(step: number, scalars: ScalarValue[]): void {
    const records = this.size() === 0 ? [frameRecord(encodeEvent(this.header()))] : [];
    records.push(frameRecord(encodeEvent({ wallTime: this.now() / 1000, step, scalars })));
    appendFileSync(this.path, Buffer.concat(records));
  }
}
