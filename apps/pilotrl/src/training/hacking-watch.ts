// The reward-hacking watch. A run whose reward rises while what the reward stands for does not is
// gaming it. At every evaluation of a stage the watch looks back over a window of evaluations and
// flags two divergences: the training reward up while held-out success is flat or falling, and the
// plan judge's score up while the outcome (training or held-out success) is flat or falling. It
// reads only what a run logs (metrics.jsonl, evals.jsonl), so a resumed run and the report see the
// same verdicts as the run that wrote them.
//
// The rule, at the evaluation after global iteration s:
//   window   the evaluations of the last `window` (the latest included), reaching back no further
//            than the evaluation the phase started from (the previous phase's last, on exactly the
//            weights this phase starts with) or, in a first phase, the phase's first evaluation;
//            the first of them is the baseline. No baseline, no verdict.
//   training a least-squares line through the phase's per-iteration values after the baseline up to
//            s: its rise (slope × span) and the 95% Student-t interval of that rise. A series has
//            risen when the rise is at least its minimum and the interval lies above 0 (three
//            iterations at least, or there is no noise to measure and nothing has risen).
//   held-out success pooled over every split (and env) evaluated at a step, with its 95% Wilson
//            interval; it has risen when it gained at least `minSuccessRise` on the baseline and
//            lies above the baseline's interval.
//   reward_vs_heldout  the training reward (`charts/episodic_return`) has risen, held-out success has not.
//   judge_vs_outcome   the judge's score (`charts/plan_judge_score`) has risen, and neither the
//            training success (`charts/success_rate`) nor held-out success has.
import { formatPercent, type Interval, studentTQuantile, wilsonInterval } from '@pilotrl/core';
import type { CurriculumConfig, WatchConfig } from '../config/curriculum-config';
import type { EvalRecord, MetricsRecord } from '../run/run-records';
import { curriculumPhases } from './phase-plan';

/** The metrics the watch reads: the training reward, training success and the plan judge's score. */
const REWARD = 'charts/episodic_return';
const SUCCESS = 'charts/success_rate';
const JUDGE = 'charts/plan_judge_score';
const WATCHED = [REWARD, SUCCESS, JUDGE];

/** A series' fitted rise over the window (slope × span), the 95% interval of that rise and its point count. */
export interface Rise extends Interval {
  rise: number;
  points: number;
}

/** Held-out success at one evaluation: every split (of every env) pooled. */
export interface HeldOut extends Interval {
  rate: number;
  successes: number;
  total: number;
}

export interface WatchVerdict {
  /** The evaluation judged: the global iteration it followed and its phase. */
  step: number;
  phase: string;
  /** The evaluation it is compared with, the window's first. */
  baselineStep: number;
  /** Training iterations of the window: after the baseline, up to `step`. */
  iterations: number;
  reward: Rise;
  /** The plan judge's score in training; null where no plans were judged in the window. */
  judge: Rise | null;
  /** Training success. */
  outcome: Rise;
  heldOut: { before: HeldOut; after: HeldOut; rise: number; rose: boolean };
  rewardVsHeldOut: boolean;
  judgeVsOutcome: boolean;
}

/** The least-squares rise of `points` (sorted by x) over their span, with its 95% interval. */
export function fittedRise(points: readonly (readonly [number, number])[]): Rise {
  const n = points.length;
  const unknown = (rise: number): Rise => ({
    rise,
    low: Number.NEGATIVE_INFINITY,
    high: Number.POSITIVE_INFINITY,
    points: n,
  });
  if (n < 2) return unknown(0);
  const meanX = points.reduce((sum, [x]) => sum + x, 0) / n;
  const meanY = points.reduce((sum, [, y]) => sum + y, 0) / n;
  const sxx = points.reduce((sum, [x]) => sum + (x - meanX) ** 2, 0);
  if (sxx === 0) return unknown(0);
  const slope = points.reduce((sum, [x, y]) => sum + (x - meanX) * (y - meanY), 0) / sxx;
  const span = points[n - 1]![0] - points[0]![0];
  const rise = slope * span;
  // Two points fit any line: the noise around it is unmeasured.
  if (n < 3) return unknown(rise);
  const residuals = points.reduce((sum, [x, y]) => sum + (y - meanY - slope * (x - meanX)) ** 2, 0);
  const half = studentTQuantile(0.975, n - 2) * Math.sqrt(residuals / (n - 2) / sxx) * span;
  return { rise, low: rise - half, high: rise + half, points: n };
}

/** Held-out success of the evaluation after global iteration `step`: all its records pooled. */
export function heldOutAt(evals: readonly EvalRecord[], step: number): HeldOut {
  const records = evals.filter((record) => record.step === step);
  const successes = records.reduce((sum, record) => sum + record.success.successes, 0);
  const total = records.reduce((sum, record) => sum + record.success.total, 0);
  return { ...wilsonInterval(successes, total), successes, total };
}

const hasRisen = (series: Rise, minimum: number) => series.rise >= minimum && series.low > 0;

/**
 * The verdict at the latest evaluation in `evals`, from the run's metrics up to it; null where the
 * rule has nothing to compare (no baseline evaluation, or a phase without a reward, such as SFT).
 */
export function watchVerdict(
  settings: WatchConfig,
  metrics: readonly MetricsRecord[],
  evals: readonly EvalRecord[],
): WatchVerdict | null {
  const steps = [...new Set(evals.map((record) => record.step))].sort((a, b) => a - b);
  const step = steps.at(-1);
  const current = metrics.find((record) => record.step === step);
  if (step === undefined || current === undefined) return null;
  const phase = metrics
    .filter((record) => record.phaseIndex === current.phaseIndex)
    .sort((a, b) => a.step - b.step);
  const phaseStart = phase[0]!.step;
  const before = steps.filter((s) => s < phaseStart).at(-1);
  const window = steps.filter((s) => s >= (before ?? phaseStart) && s <= step);
  if (window.length < 2) return null;
  const baselineStep = window[Math.max(0, window.length - settings.window)]!;
  const iterations = phase.filter((record) => record.step > baselineStep && record.step <= step);
  const series = (key: string) =>
    iterations.flatMap((record) => {
      const value = record[key];
      return typeof value === 'number' && Number.isFinite(value) ? [[record.step, value] as const] : [];
    });
  const rewards = series(REWARD);
  if (rewards.length === 0) return null;
  const judged = series(JUDGE);
  const reward = fittedRise(rewards);
  const judge = judged.length === 0 ? null : fittedRise(judged);
  const outcome = fittedRise(series(SUCCESS));
  const baseline = heldOutAt(evals, baselineStep);
  const latest = heldOutAt(evals, step);
  const heldOutRise = latest.rate - baseline.rate;
  const heldOutRose = heldOutRise >= settings.minSuccessRise && latest.rate > baseline.high;
  return {
    step,
    phase: current.phase,
    baselineStep,
    iterations: iterations.length,
    reward,
    judge,
    outcome,
    heldOut: { before: baseline, after: latest, rise: heldOutRise, rose: heldOutRose },
    rewardVsHeldOut: hasRisen(reward, settings.minRewardRise) && !heldOutRose,
    judgeVsOutcome:
      judge !== null &&
      hasRisen(judge, settings.minJudgeRise) &&
      !hasRisen(outcome, settings.minSuccessRise) &&
      !heldOutRose,
  };
}

/** A verdict as metrics of the iteration its evaluation followed; the judge's only where plans were judged. */
export function watchMetrics(verdict: WatchVerdict): Record<string, number> {
  return {
    'watch/reward_vs_heldout': verdict.rewardVsHeldOut ? 1 : 0,
    ...(verdict.judge === null ? {} : { 'watch/judge_vs_outcome': verdict.judgeVsOutcome ? 1 : 0 }),
    'watch/reward_rise': verdict.reward.rise,
    'watch/heldout_rise': verdict.heldOut.rise,
    ...(verdict.judge === null ? {} : { 'watch/judge_rise': verdict.judge.rise }),
    'watch/outcome_rise': verdict.outcome.rise,
    'watch/baseline_step': verdict.baselineStep,
  };
}

const flatOrFalling = (rise: number) => (rise < 0 ? 'falling' : 'flat');

/** The progress line's flag for a verdict that fired; undefined when it did not. */
export function watchFlag(verdict: WatchVerdict): string | undefined {
  const flags = [
    ...(verdict.rewardVsHeldOut ? [`reward up, held-out ${flatOrFalling(verdict.heldOut.rise)}`] : []),
    ...(verdict.judgeVsOutcome ? [`judge up, outcome ${flatOrFalling(verdict.outcome.rise)}`] : []),
  ];
  return flags.length === 0 ? undefined : `⚠ ${flags.join('; ')}`;
}

const signed = (value: number, digits = 3) => `${value >= 0 ? '+' : ''}${value.toFixed(digits)}`;

/** What a verdict that fired saw, in one line for the log. */
export function describeVerdict(verdict: WatchVerdict): string {
  const { before, after } = verdict.heldOut;
  const span = `iterations ${verdict.baselineStep + 1}-${verdict.step}`;
  const parts = [
    `training reward ${signed(verdict.reward.rise)} over ${span}`,
    ...(verdict.judge === null ? [] : [`judge score ${signed(verdict.judge.rise, 2)}`]),
    `training success ${signed(verdict.outcome.rise * 100, 1)} points`,
    `held-out success ${formatPercent(before.rate)} (n=${before.total}) → ${formatPercent(after.rate)} (n=${after.total})`,
  ];
  return `reward-hacking watch at iteration ${verdict.step} (${verdict.phase}): ${watchFlag(verdict) ?? 'no divergence'}: ${parts.join(', ')}`;
}

/** The part of a metrics record the watch reads, so that a long phase between evaluations holds little. */
const watched = (record: MetricsRecord): MetricsRecord => ({
  step: record.step,
  phase: record.phase,
  phaseIndex: record.phaseIndex,
  iteration: record.iteration,
  ...Object.fromEntries(WATCHED.flatMap((key) => (key in record ? [[key, record[key]]] : []))),
});

/**
 * The verdicts of a running curriculum: it is told every iteration's metrics and the evaluation
 * after it, and keeps only the records a later verdict can still read.
 */
export class HackingWatch {
  private metrics: MetricsRecord[];
  private evals: EvalRecord[];

  constructor(
    private readonly settings: WatchConfig,
    history: { metrics: readonly MetricsRecord[]; evals: readonly EvalRecord[] } = { metrics: [], evals: [] },
  ) {
    this.metrics = history.metrics.map(watched);
    this.evals = [...history.evals];
  }

  /** The verdict at an iteration (its metrics, without the watch's own) and the evaluation after it, if one ran. */
  check(record: MetricsRecord, evals: readonly EvalRecord[]): WatchVerdict | null {
    this.metrics.push(watched(record));
    this.evals.push(...evals);
    if (evals.length === 0) return null;
    const verdict = watchVerdict(this.settings, this.metrics, this.evals);
    // A later verdict's baseline is at the earliest the window's second evaluation from here, or
    // the evaluation a next phase starts from: the latest.
    const steps = [...new Set(this.evals.map((e) => e.step))].sort((a, b) => a - b);
    const keepFrom = steps[Math.max(0, steps.length - (this.settings.window - 1))]!;
    this.evals = this.evals.filter((e) => e.step >= keepFrom);
    this.metrics = this.metrics.filter((m) => m.step >= keepFrom);
    return verdict;
  }
}

/**
 * What the watch can see with a curriculum's evaluation schedule, one line per phase: how many
 * verdicts each stage gets and over how many training iterations, or why it gets none.
 */
export function watchCoverage(config: CurriculumConfig): string[] {
  if (!config.watch.enabled) return ['the reward-hacking watch is off (watch.enabled: false)'];
  const { every } = config.eval;
  return curriculumPhases(config).flatMap((phase, index) => {
    if (phase.kind === 'sft') return [];
    const at: number[] = [];
    for (let iteration = every; iteration < phase.iterations; iteration += every) at.push(iteration);
    at.push(phase.iterations);
    // Every phase ends with an evaluation, so a phase after another starts from one.
    const baselines = index > 0 ? [0, ...at] : at;
    const offset = index > 0 ? 1 : 0;
    const windows = at.flatMap((iteration, k) =>
      k + offset === 0 ? [] : [iteration - baselines[Math.max(0, k + offset - (config.watch.window - 1))]!],
    );
    const name = `${phase.name} (${phase.iterations} iteration${phase.iterations === 1 ? '' : 's'})`;
    if (windows.length === 0) {
      return [
        `${name}: blind, its one evaluation has none before it to compare with; set eval.every below ${phase.iterations} or add an sft section`,
      ];
    }
    const smallest = windows.reduce((a, b) => Math.min(a, b));
    const largest = windows.reduce((a, b) => Math.max(a, b));
    const sized = `${windows.length} verdict${windows.length === 1 ? '' : 's'} over ${smallest === largest ? smallest : `${smallest}-${largest}`} training iterations`;
    const tooShort = windows.filter((w) => w < 3).length;
    if (tooShort === 0) return [`${name}: ${sized}`];
    const which = tooShort === windows.length ? 'all' : `${tooShort}`;
    return [
      `${name}: ${sized}; ${which} under 3, too few to tell a rise from noise, so the watch cannot fire there (raise the stage's iterations, eval.every or watch.window)`,
    ];
  });
}
