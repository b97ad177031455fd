// The run's event file against TensorBoard itself (PyPI tensorboard, from the venv of
// apps/pilotrl/reference/tensorboard/setup.sh): TensorBoard's own EventAccumulator, the loader
// behind `tensorboard --logdir`, reads a real run's directory and finds every scalar of its
// metrics.jsonl and evals.jsonl at its step with its value; and our reader reads what TensorBoard's
// own writer wrote. Without the venv these tests skip loudly, and fail when CI is set.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { referenceVenv } from '../../../../tooling/reference-suite';
import { train } from '../library';
import { tinyCorridorConfig } from '../tiny-corridor.testing';
import { runPaths } from './run-dir';
import { readEvals, readMetrics } from './run-records';
import { evalScalars, metricsScalars } from './tensorboard-log';
import { FILE_VERSION, readEvents, type ScalarValue } from './tfevents';

const reference = referenceVenv(
  'tensorboard-reference',
  "the run's TensorBoard event file read by TensorBoard's own EventAccumulator",
  'apps/pilotrl/reference/tensorboard/setup.sh',
  'PyPI, about 20 s',
);
const scripts = join(import.meta.dirname, '..', '..', 'reference', 'tensorboard');

const python = (script: string, args: string[], input?: string) =>
  execFileSync(reference.python, [join(scripts, script), ...args], {
    encoding: 'utf8',
    ...(input === undefined ? {} : { input }),
  });

/** Scalars by tag, each a list of [step, value] in the order written. */
function byTag(events: readonly { step: number; scalars: readonly ScalarValue[] }[]) {
  const tags: Record<string, [number, number][]> = {};
  for (const { step, scalars } of events) {
    for (const { tag, value } of scalars) tags[tag] = [...(tags[tag] ?? []), [step, value]];
  }
  return tags;
}

let scratch = '';
afterAll(() => {
  if (scratch !== '') rmSync(scratch, { recursive: true, force: true });
});

describe.skipIf(!reference.run)("a run's event file in TensorBoard", () => {
  it('holds every scalar of a real run, as TensorBoard reads it', async () => {
    expect(reference.installed, 'run apps/pilotrl/reference/tensorboard/setup.sh first').toBe(true);
    scratch = mkdtempSync(join(tmpdir(), 'pilotrl-tensorboard-'));
    const { runDir } = await train(tinyCorridorConfig(1), { out: join(scratch, 'run') });
    const paths = runPaths(runDir);
    const metrics = readMetrics(paths.metrics);
    const evals = readEvals(paths.evals);
    expect(metrics.map((record) => record.phase)).toEqual(['sft', 'sft', 'joint', 'joint']);
    expect(evals.map((record) => record.step)).toEqual([2, 4]);

    // What the JSONL logs hold, in float32 as a summary's simple_value carries it.
    const expected = byTag(
      [
        ...evals.map((record) => ({ step: record.step, order: 0, scalars: evalScalars(record) })),
        ...metrics.map((record) => ({ step: record.step, order: 1, scalars: metricsScalars(record) })),
      ]
        .sort((a, b) => a.step - b.step || a.order - b.order)
        .map(({ step, scalars }) => ({
          step,
          scalars: scalars.map(({ tag, value }) => ({ tag, value: Math.fround(value) })),
        })),
    );
    expect(Object.keys(expected)).toEqual(
      expect.arrayContaining([
        'losses/sft_loss',
        'charts/success_rate',
        'compute/train_cpu_seconds',
        'eval/valid_unseen/success/rate',
        'eval/valid_unseen/meanSteps',
      ]),
    );
    expect(Object.keys(expected).length).toBeGreaterThan(20);

    const found = JSON.parse(python('read_scalars.py', [runDir])) as {
      fileVersion: string;
      scalars: Record<string, [number, number][]>;
    };
    expect(found.fileVersion).toBe(FILE_VERSION);
    expect(found.scalars).toEqual(expected);
  });

  it("reads what TensorBoard's own writer wrote", () => {
    const dir = mkdtempSync(join(tmpdir(), 'pilotrl-tensorboard-writer-'));
    try {
      const written = [
        { step: 1, scalars: { 'losses/policy_loss': 0.1, 'charts/success_rate': 0.5 } },
        { step: 2 ** 33, scalars: { 'losses/policy_loss': -2.75 } },
      ];
      const path = python('write_scalars.py', [dir], JSON.stringify(written)).trim();
      const events = readEvents(readFileSync(path), path);
      expect(events[0]!.fileVersion).toBe(FILE_VERSION);
      expect(byTag(events.slice(1).map(({ step, scalars }) => ({ step, scalars: scalars ?? [] })))).toEqual({
        'losses/policy_loss': [
          [1, Math.fround(0.1)],
          [2 ** 33, -2.75],
        ],
        'charts/success_rate': [[1, 0.5]],
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
