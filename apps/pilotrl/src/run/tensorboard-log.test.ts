import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runPaths } from './run-dir';
import { logEval, logMetrics, logSizes, openRunLogs, rewindLogs } from './run-logs';
import type { EvalRecord, MetricsRecord } from './run-records';
import { evalScalars, metricsScalars, TensorBoardLog } from './tensorboard-log';
import { FILE_VERSION } from './tfevents';

const metrics = (step: number): MetricsRecord => ({
  step,
  phase: 'joint',
  phaseIndex: 1,
  iteration: step,
  'charts/success_rate': step / 10,
  'losses/policy_loss': -step,
  note: 'no update: every advantage was 0',
  'charts/judge_score': null,
});

const proportion = (rate: number) => ({ successes: 1, total: 2, rate, low: 0.1, high: 0.9 });
const evalRecord = (step: number, env?: string): EvalRecord => ({
  step,
  phase: 'joint',
  ...(env === undefined ? {} : { env }),
  split: 'valid_unseen',
  paradigm: 'adaplan',
  success: proportion(0.5),
  byTaskType: { pick: proportion(0.25) },
  meanSteps: 4,
  formatErrorRate: 0,
  judgeScore: null,
  diagnostics: {
    planFollow: null,
    revisions: null,
    errorsByTurn: [{ from: 1, to: 5, turns: 8, errors: 1, rate: 0.125 }],
  },
});

const scratchRun = () => {
  const paths = runPaths(mkdtempSync(join(tmpdir(), 'pilotrl-tensorboard-')));
  return { paths, logs: openRunLogs(paths) };
};

describe('the scalars of a run', () => {
  it('takes every number of a metrics line but its step, under its own key', () => {
    expect(metricsScalars(metrics(3))).toEqual([
      { tag: 'phaseIndex', value: 1 },
      { tag: 'iteration', value: 3 },
      { tag: 'charts/success_rate', value: 0.3 },
      { tag: 'losses/policy_loss', value: -3 },
    ]);
  });

  it('takes every number of an evaluation under its env and split, leaving out the per-turn buckets', () => {
    expect(evalScalars(evalRecord(2))).toEqual([
      { tag: 'eval/valid_unseen/success/successes', value: 1 },
      { tag: 'eval/valid_unseen/success/total', value: 2 },
      { tag: 'eval/valid_unseen/success/rate', value: 0.5 },
      { tag: 'eval/valid_unseen/success/low', value: 0.1 },
      { tag: 'eval/valid_unseen/success/high', value: 0.9 },
      { tag: 'eval/valid_unseen/byTaskType/pick/successes', value: 1 },
      { tag: 'eval/valid_unseen/byTaskType/pick/total', value: 2 },
      { tag: 'eval/valid_unseen/byTaskType/pick/rate', value: 0.25 },
      { tag: 'eval/valid_unseen/byTaskType/pick/low', value: 0.1 },
      { tag: 'eval/valid_unseen/byTaskType/pick/high', value: 0.9 },
      { tag: 'eval/valid_unseen/meanSteps', value: 4 },
      { tag: 'eval/valid_unseen/formatErrorRate', value: 0 },
    ]);
    expect(evalScalars(evalRecord(2, 'maze')).map((s) => s.tag)).toContain(
      'eval/maze/valid_unseen/success/rate',
    );
  });
});

describe('the event file', () => {
  it('opens with the file version, then one event per record at its step', () => {
    const { paths, logs } = scratchRun();
    logEval(logs, evalRecord(2));
    logMetrics(logs, metrics(2));
    const events = new TensorBoardLog(paths.tensorboard).read();
    expect(events.map((e) => [e.step, e.fileVersion, e.scalars?.length])).toEqual([
      [0, FILE_VERSION, undefined],
      [2, undefined, 12],
      [2, undefined, 4],
    ]);
    expect(events[2]!.scalars![2]).toEqual({ tag: 'charts/success_rate', value: Math.fround(0.2) });
    // The JSONL logs get the same records.
    expect(readFileSync(paths.metrics, 'utf8').trim()).toBe(JSON.stringify(metrics(2)));
  });

  it('is not written when the config turns it off', () => {
    const paths = runPaths(mkdtempSync(join(tmpdir(), 'pilotrl-tensorboard-')));
    const logs = openRunLogs(paths, { tensorboard: false });
    logMetrics(logs, metrics(1));
    expect(new TensorBoardLog(paths.tensorboard).size()).toBe(0);
    expect(Object.keys(logSizes(logs))).toEqual(['metrics', 'episodes', 'evals']);
  });
});

describe('resuming', () => {
  it('cuts the file back to the length the checkpoint recorded, with the JSONL logs', () => {
    const { paths, logs } = scratchRun();
    logMetrics(logs, metrics(1));
    // An event only the event file holds: kept by cutting the file, lost by writing it anew.
    logs.tensorboard!.appendMetrics(metrics(9));
    const atCheckpoint = logSizes(logs);
    expect(atCheckpoint.tensorboard).toBeGreaterThan(0);
    logMetrics(logs, metrics(2));
    // A record cut short by the kill.
    appendFileSync(paths.tensorboard, Buffer.from([9, 0, 0]));
    expect(rewindLogs(logs, atCheckpoint)).toBeUndefined();
    logMetrics(logs, metrics(2));
    const events = new TensorBoardLog(paths.tensorboard).read();
    expect(events.map((e) => e.step)).toEqual([0, 1, 9, 2]);
  });

  it('writes the file anew from the JSONL logs when the checkpoint recorded no length for it', () => {
    const { paths, logs } = scratchRun();
    logEval(logs, evalRecord(1));
    logMetrics(logs, metrics(1));
    logMetrics(logs, metrics(2));
    logEval(logs, evalRecord(2));
    // A checkpoint from before the event file was kept, taken after step 1.
    const { tensorboard: _none, ...older } = logSizes(logs);
    older.metrics = readFileSync(paths.metrics, 'utf8').indexOf('\n') + 1;
    older.evals = readFileSync(paths.evals, 'utf8').indexOf('\n') + 1;
    expect(rewindLogs(logs, older)).toMatch(/^tensorboard: .*events\.out\.tfevents\.pilotrl written anew/);
    const events = new TensorBoardLog(paths.tensorboard).read();
    expect(events.map((e) => [e.step, e.scalars?.[0]?.tag])).toEqual([
      [0, undefined],
      [1, 'eval/valid_unseen/success/successes'],
      [1, 'phaseIndex'],
    ]);
  });
});
