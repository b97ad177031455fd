import { ConfigError, wilsonInterval } from '@pilotrl/core';
import { describe, expect, it } from 'vitest';
import { parseConfig, watchConfigSchema } from '../config/curriculum-config';
import type { EvalRecord, MetricsRecord } from '../run/run-records';
import { tinyCorridorConfig } from '../tiny-corridor.testing';
import {
  fittedRise,
  HackingWatch,
  watchCoverage,
  watchFlag,
  watchMetrics,
  watchVerdict,
} from './hacking-watch';

const settings = watchConfigSchema.parse({});

/** An SFT iteration at step 1, then one stage's iterations from step 2 with these per-iteration values. */
function run(series: { reward: number[]; success?: number[]; judge?: number[] }): MetricsRecord[] {
  const sft: MetricsRecord = { step: 1, phase: 'sft', phaseIndex: 0, iteration: 1, 'losses/sft_loss': 1 };
  return [
    sft,
    ...series.reward.map((reward, index) => ({
      step: index + 2,
      phase: 'joint',
      phaseIndex: 1,
      iteration: index + 1,
      'charts/episodic_return': reward,
      'charts/success_rate': series.success?.[index] ?? 0.2,
      ...(series.judge === undefined ? {} : { 'charts/plan_judge_score': series.judge[index]! }),
    })),
  ];
}

/** The held-out evaluation after `step`: `successes` of `total`, on one split. */
function evaluation(step: number, successes: number, total = 100, split = 'valid_unseen'): EvalRecord {
  return {
    step,
    phase: step === 1 ? 'sft' : 'joint',
    split,
    paradigm: 'adaplan',
    success: { successes, total, ...wilsonInterval(successes, total) },
    byTaskType: {},
    meanSteps: 3,
    formatErrorRate: 0,
    judgeScore: null,
  };
}

const rising = [0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45];

describe('the reward-hacking watch rule', () => {
  it('fits a rise with its 95% interval, and measures no noise from two points', () => {
    const line = fittedRise([
      [1, 0],
      [2, 0.1],
      [3, 0.2],
    ]);
    expect(line.rise).toBeCloseTo(0.2);
    expect(line.low).toBeCloseTo(0.2);
    const two = fittedRise([
      [1, 0],
      [2, 1],
    ]);
    expect(two.rise).toBeCloseTo(1);
    expect(two.low).toBe(Number.NEGATIVE_INFINITY);
  });

  it('fires when the training reward rises while held-out success stays flat', () => {
    const verdict = watchVerdict(settings, run({ reward: rising }), [evaluation(1, 30), evaluation(9, 31)]);
    expect(verdict).toMatchObject({ step: 9, baselineStep: 1, iterations: 8, rewardVsHeldOut: true });
    expect(verdict!.reward.rise).toBeCloseTo(0.35);
    expect(watchFlag(verdict!)).toBe('⚠ reward up, held-out flat');
    expect(watchMetrics(verdict!)).toMatchObject({
      'watch/reward_vs_heldout': 1,
      'watch/baseline_step': 1,
    });
    expect(watchMetrics(verdict!)['watch/heldout_rise']).toBeCloseTo(0.01);
    // No plans judged: no judge verdict is claimed.
    expect(watchMetrics(verdict!)).not.toHaveProperty('watch/judge_vs_outcome');
  });

  it('fires when the training reward rises while held-out success falls', () => {
    const verdict = watchVerdict(settings, run({ reward: rising }), [evaluation(1, 40), evaluation(9, 20)]);
    expect(verdict!.rewardVsHeldOut).toBe(true);
    expect(watchFlag(verdict!)).toBe('⚠ reward up, held-out falling');
  });

  it('does not fire when held-out success rises with the reward', () => {
    const verdict = watchVerdict(settings, run({ reward: rising }), [evaluation(1, 20), evaluation(9, 40)]);
    expect(verdict!.heldOut.rose).toBe(true);
    expect(verdict!.rewardVsHeldOut).toBe(false);
    expect(watchFlag(verdict!)).toBeUndefined();
  });

  it('does not fire on a reward that moves within its noise', () => {
    // Its fitted rise passes the minimum, but the iterations scatter too much to tell it from chance.
    const noisy = [0.1, 0.5, 0.0, 0.45, 0.05, 0.5, 0.1, 0.4];
    const verdict = watchVerdict(settings, run({ reward: noisy }), [evaluation(1, 30), evaluation(9, 30)]);
    expect(verdict!.reward.rise).toBeGreaterThan(settings.minRewardRise);
    expect(verdict!.reward.low).toBeLessThan(0);
    expect(verdict!.rewardVsHeldOut).toBe(false);
    // Nor on a steady rise smaller than `minRewardRise`.
    const slight = rising.map((r) => r / 10);
    expect(
      watchVerdict(settings, run({ reward: slight }), [evaluation(1, 30), evaluation(9, 30)])!
        .rewardVsHeldOut,
    ).toBe(false);
  });

  it('counts a held-out gain inside the baseline interval as flat', () => {
    // 20/50 → 26/50 gains 12 points, within the baseline's 95% interval [27.6%, 53.9%].
    const verdict = watchVerdict(settings, run({ reward: rising }), [
      evaluation(1, 20, 50),
      evaluation(9, 26, 50),
    ]);
    expect(verdict!.heldOut.rise).toBeCloseTo(0.12);
    expect(verdict!.rewardVsHeldOut).toBe(true);
  });

  it('pools the splits (and envs) evaluated at a step', () => {
    const evals = [
      evaluation(1, 10, 50, 'valid_seen'),
      evaluation(1, 10, 50),
      evaluation(9, 25, 50, 'valid_seen'),
      evaluation(9, 25, 50),
    ];
    const verdict = watchVerdict(settings, run({ reward: rising }), evals)!;
    expect(verdict.heldOut.before.total).toBe(100);
    expect(verdict.heldOut.after.rate).toBeCloseTo(0.5);
    expect(verdict.rewardVsHeldOut).toBe(false);
  });

  it("fires when the judge's score rises while the outcome does not, and not when success rises too", () => {
    const judge = [2, 2.3, 2.6, 2.9, 3.2, 3.5, 3.8, 4.1];
    const flat = run({ reward: rising.map(() => 0.3), judge, success: rising.map(() => 0.3) });
    const verdict = watchVerdict(settings, flat, [evaluation(1, 30), evaluation(9, 30)])!;
    expect(verdict.judgeVsOutcome).toBe(true);
    expect(verdict.rewardVsHeldOut).toBe(false);
    expect(watchFlag(verdict)).toBe('⚠ judge up, outcome flat');
    expect(watchMetrics(verdict)).toMatchObject({ 'watch/judge_vs_outcome': 1 });
    expect(watchMetrics(verdict)['watch/judge_rise']).toBeCloseTo(2.1);

    const succeeding = run({ reward: rising, judge, success: rising });
    expect(watchVerdict(settings, succeeding, [evaluation(1, 30), evaluation(9, 30)])!.judgeVsOutcome).toBe(
      false,
    );
    const heldOutUp = run({ reward: rising.map(() => 0.3), judge, success: rising.map(() => 0.3) });
    expect(watchVerdict(settings, heldOutUp, [evaluation(1, 20), evaluation(9, 40)])!.judgeVsOutcome).toBe(
      false,
    );
  });

  it('spans the last `window` evaluations, never reaching before the phase started', () => {
    const metrics = run({ reward: [...rising, ...rising.map((r) => r + 0.4)] });
    const evals = [
      evaluation(1, 30),
      evaluation(5, 30),
      evaluation(9, 30),
      evaluation(13, 30),
      evaluation(17, 30),
    ];
    // Window 3: the evaluation two before the latest.
    expect(watchVerdict(settings, metrics, evals)).toMatchObject({ baselineStep: 9, iterations: 8 });
    expect(watchVerdict({ ...settings, window: 2 }, metrics, evals)).toMatchObject({ baselineStep: 13 });
    // A wide window stops at the evaluation after SFT, on the weights the stage started from.
    expect(watchVerdict({ ...settings, window: 10 }, metrics, evals)).toMatchObject({
      baselineStep: 1,
      iterations: 16,
    });
    // A stage's first evaluation with none before it has nothing to compare with.
    const noSft = metrics.slice(1);
    expect(watchVerdict(settings, noSft, [evaluation(5, 30)])).toBeNull();
    // SFT has no reward to watch.
    expect(watchVerdict(settings, metrics.slice(0, 1), [evaluation(1, 30)])).toBeNull();
  });

  it('gives the same verdicts while it runs as on the whole logs afterwards', () => {
    const metrics = run({ reward: Array.from({ length: 40 }, (_, i) => 0.1 + 0.01 * i + (i % 3) * 0.02) });
    const evals = metrics
      .filter((m) => m.step === 1 || (m.step - 1) % 5 === 0)
      .map((m) => evaluation(m.step, 30 + (m.step % 7)));
    const watch = new HackingWatch(settings, { metrics: metrics.slice(0, 11), evals: evals.slice(0, 3) });
    for (const record of metrics.slice(11)) {
      const now = evals.filter((e) => e.step === record.step);
      const verdict = watch.check(record, now);
      if (now.length === 0) expect(verdict).toBeNull();
      else {
        const upTo = (r: { step: number }) => r.step <= record.step;
        expect(verdict).toEqual(watchVerdict(settings, metrics.filter(upTo), evals.filter(upTo)));
      }
    }
  });
});

describe('what the watch can see', () => {
  it('compares each stage with the evaluation before it, and says where it is blind', () => {
    // Evaluations only at the ends of the phases: each stage against the one before it.
    const phaseEnds = tinyCorridorConfig(2, { eval: { episodes: 2, every: 100, splits: ['valid_unseen'] } });
    expect(watchCoverage(phaseEnds)).toEqual([
      "joint-1 (2 iterations): 1 verdict over 2 training iterations; all under 3, too few to tell a rise from noise, so the watch cannot fire there (raise the stage's iterations, eval.every or watch.window)",
      "joint-2 (2 iterations): 1 verdict over 2 training iterations; all under 3, too few to tell a rise from noise, so the watch cannot fire there (raise the stage's iterations, eval.every or watch.window)",
    ]);
    const noSft = tinyCorridorConfig(1, { sft: undefined, eval: { episodes: 2, every: 100, splits: ['a'] } });
    expect(watchCoverage(noSft)).toEqual([
      'joint (2 iterations): blind, its one evaluation has none before it to compare with; set eval.every below 2 or add an sft section',
    ]);
    const periodic = parseConfig({
      ...tinyCorridorConfig(1),
      stages: [{ ...tinyCorridorConfig(1).stages[0]!, iterations: 20 }],
      eval: { episodes: 2, every: 5, splits: ['valid_unseen'] },
    });
    expect(watchCoverage(periodic)).toEqual([
      'joint (20 iterations): 4 verdicts over 5-10 training iterations',
    ]);
    expect(watchCoverage(parseConfig({ ...periodic, watch: { enabled: false } }))).toEqual([
      'the reward-hacking watch is off (watch.enabled: false)',
    ]);
  });
});

describe('the watch config', () => {
  it('has defaults, and refuses bad values with the key and the bound', () => {
    expect(tinyCorridorConfig(1).watch).toEqual({
      enabled: true,
      window: 3,
      minRewardRise: 0.05,
      minJudgeRise: 0.25,
      minSuccessRise: 0.05,
    });
    const refused = (watch: unknown) => {
      try {
        parseConfig({ ...tinyCorridorConfig(1), watch });
      } catch (error) {
        expect(ConfigError.isInstance(error)).toBe(true);
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    expect(refused({ window: 1 })).toContain('watch.window: must be at least 2 (got 1)');
    expect(refused({ minSuccessRise: 1.5 })).toContain(
      'watch.minSuccessRise: must be above 0 and at most 1 (got 1.5)',
    );
    expect(refused({ minRewardRise: 0 })).toContain('watch.minRewardRise: must be above 0');
    expect(refused({ minJudgeRise: Number.NaN })).toContain('watch.minJudgeRise');
    expect(refused({ windwo: 3 })).toContain(
      'watch: unknown key "windwo"; allowed here: enabled, window, minRewardRise, minJudgeRise, minSuccessRise',
    );
  });
});
