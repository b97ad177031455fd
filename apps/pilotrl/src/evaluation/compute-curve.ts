// `pilotrl compute-curve`: held-out success against compute, for spending it on training (the
// evaluation at the end of each phase of a curriculum, greedy) and for spending it on test-time
// search from the same checkpoints (best-of-N plans, look-ahead). Compute is CPU seconds of the
// trainer process: training's (rollouts, rewards, updates) up to the checkpoint plus the
// evaluation's own, so both kinds of spending are measured in the same unit on the same machine.
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { ConfigError, formatPercent, meanInterval, wilsonInterval } from '@pilotrl/core';
import { z } from 'zod';
import { type CurriculumConfig, parseConfig } from '../config/curriculum-config';
import { policyBackendOf } from '../policies/registry';
import { chartToPng } from '../reporting/plot/chart-png';
import type { LineSeries } from '../reporting/plot/charts';
import { runPaths } from '../run/run-dir';
import { readEvals, readMetrics } from '../run/run-records';

/** One evaluated point of one seed: weights from a checkpoint, played greedily or with a search. */
export const curvePointSchema = z.object({
  seed: z.number().int().nonnegative(),
  /** The phase whose end the weights come from, in curriculum order: `sft`, then the stages. */
  phase: z.string(),
  /** Position of that phase in the curriculum (0 is the first). */
  phaseIndex: z.number().int().nonnegative(),
  /** The run's global iteration at that phase's end: where its checkpoint was written. */
  step: z.number().int().nonnegative(),
  /** `greedy`, or the search, e.g. `best-of-4 (judge)`, `lookahead w4 d2 (rollout)`. */
  search: z.string(),
  /** CPU seconds training took up to the checkpoint. */
  trainCpuSeconds: z.number().nonnegative(),
  /** CPU seconds the evaluation took, all its episodes. */
  evalCpuSeconds: z.number().nonnegative(),
  successes: z.number().int().nonnegative(),
  episodes: z.number().int().positive(),
  /** What the evaluation's episodes spent, summed: generated and scored tokens, env steps. */
  generatedTokens: z.number().int().nonnegative().optional(),
  scoredTokens: z.number().int().nonnegative().optional(),
  envSteps: z.number().int().nonnegative().optional(),
});
export type CurvePoint = z.infer<typeof curvePointSchema>;

/** The training run of `seed`: `base` with that seed, one held-out split, every phase end kept. */
export function curveConfig(
  base: CurriculumConfig,
  seed: number,
  split: string,
  episodes: number,
): CurriculumConfig {
  if (base.stages.length === 0 && base.sft === undefined) {
    throw new ConfigError(`compute-curve: curriculum "${base.name}" trains nothing (no SFT, no stages)`);
  }
  const backend = policyBackendOf(base.policy);
  if (!backend.offers.localTraining) {
    throw new ConfigError(
      `compute-curve: curriculum "${base.name}" trains on ${backend.trainsOn}, whose compute this process cannot count; the curve compares CPU seconds of policies trained in this process`,
    );
  }
  return parseConfig(
    {
      ...base,
      name: `compute-curve-seed${seed}`,
      seed,
      policy: { ...base.policy, seed },
      // Evaluations at the end of each phase only; checkpoints there too, none pruned (a
      // curriculum has far fewer phases than 100).
      eval: { ...base.eval, splits: [split], episodes, every: 1000 },
      checkpoint: { every: 1000, keep: 100 },
    },
    `compute-curve run of seed ${seed}`,
  );
}

/** The greedy evaluation at the end of each phase of a finished run, with training's compute to there. */
export function trainingPoints(runDir: string, seed: number): CurvePoint[] {
  const paths = runPaths(runDir);
  const trainCpu = new Map<number, number>();
  const phaseIndex = new Map<number, number>();
  for (const record of readMetrics(paths.metrics)) {
    const seconds = record['compute/train_cpu_seconds'];
    if (typeof seconds === 'number') trainCpu.set(record.step, seconds);
    phaseIndex.set(record.step, record.phaseIndex);
  }
  return readEvals(paths.evals).map((record) => {
    const seconds = trainCpu.get(record.step);
    if (seconds === undefined || record.cpuSeconds === undefined) {
      throw new ConfigError(
        `${runDir}: the evaluation at iteration ${record.step} has no compute figures; it was trained before they were kept, so train it again`,
      );
    }
    return {
      seed,
      phase: record.phase,
      phaseIndex: phaseIndex.get(record.step) ?? 0,
      step: record.step,
      search: 'greedy',
      trainCpuSeconds: seconds,
      evalCpuSeconds: record.cpuSeconds,
      successes: record.success.successes,
      episodes: record.success.total,
      envSteps: Math.round(record.meanSteps * record.success.total),
    };
  });
}

/** Points already measured, kept one JSON line each so an interrupted curve resumes. */
export function readCurvePoints(path: string): CurvePoint[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => curvePointSchema.parse(JSON.parse(line)));
}

export function appendCurvePoint(path: string, point: CurvePoint): void {
  appendFileSync(path, `${JSON.stringify(curvePointSchema.parse(point))}\n`);
}

/** One row of the table: a (checkpoint, search) pair over seeds. */
export interface CurveRow {
  phase: string;
  phaseIndex: number;
  search: string;
  seeds: number;
  /** Mean success over seeds with its 95% t-interval. */
  success: { mean: number; low: number; high: number };
  /** All episodes pooled, with the 95% Wilson interval. */
  pooled: { rate: number; low: number; high: number; successes: number; episodes: number };
  /** Means over seeds. */
  trainCpuSeconds: number;
  evalCpuSecondsPerEpisode: number;
  /** Training plus the evaluation's episodes, mean over seeds. */
  totalCpuSeconds: number;
  generatedTokensPerEpisode?: number;
  envStepsPerEpisode?: number;
}

const average = (values: readonly number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;

export function curveRows(points: readonly CurvePoint[]): CurveRow[] {
  const groups = new Map<string, CurvePoint[]>();
  for (const point of points) {
    const key = `${point.phaseIndex}\u0000${point.search}`;
    groups.set(key, [...(groups.get(key) ?? []), point]);
  }
  return [...groups.values()]
    .map((group): CurveRow => {
      const first = group[0]!;
      const rates = group.map((p) => p.successes / p.episodes);
      const successes = group.reduce((sum, p) => sum + p.successes, 0);
      const episodes = group.reduce((sum, p) => sum + p.episodes, 0);
      const interval =
        group.length > 1 ? meanInterval(rates) : { mean: rates[0]!, low: Number.NaN, high: Number.NaN };
      const pooled = wilsonInterval(successes, episodes);
      const perEpisode = (pick: (p: CurvePoint) => number | undefined) =>
        group.every((p) => pick(p) !== undefined)
          ? average(group.map((p) => pick(p)! / p.episodes))
          : undefined;
      const generated = perEpisode((p) => p.generatedTokens);
      const steps = perEpisode((p) => p.envSteps);
      return {
        phase: first.phase,
        phaseIndex: first.phaseIndex,
        search: first.search,
        seeds: group.length,
        success: { mean: interval.mean, low: interval.low, high: interval.high },
        pooled: { rate: pooled.rate, low: pooled.low, high: pooled.high, successes, episodes },
        trainCpuSeconds: average(group.map((p) => p.trainCpuSeconds)),
        evalCpuSecondsPerEpisode: average(group.map((p) => p.evalCpuSeconds / p.episodes)),
        totalCpuSeconds: average(group.map((p) => p.trainCpuSeconds + p.evalCpuSeconds)),
        ...(generated === undefined ? {} : { generatedTokensPerEpisode: generated }),
        ...(steps === undefined ? {} : { envStepsPerEpisode: steps }),
      };
    })
    .sort((a, b) => a.phaseIndex - b.phaseIndex || a.totalCpuSeconds - b.totalCpuSeconds);
}

/**
 * What spending more buys, seed by seed: each search against greedy play from the same checkpoint,
 * and each later phase's greedy play against the first phase's; the mean paired difference in
 * success over the seeds that have both, with its 95% t-interval, and the extra CPU seconds.
 */
export function curveFindings(points: readonly CurvePoint[]): string[] {
  const key = (p: Pick<CurvePoint, 'seed' | 'phaseIndex' | 'search'>) =>
    `${p.seed}\u0000${p.phaseIndex}\u0000${p.search}`;
  const byKey = new Map(points.map((p) => [key(p), p]));
  const rate = (p: CurvePoint) => p.successes / p.episodes;
  const total = (p: CurvePoint) => p.trainCpuSeconds + p.evalCpuSeconds;
  const compare = (label: string, pairs: [CurvePoint, CurvePoint][]) => {
    if (pairs.length === 0) return [];
    const differences = pairs.map(([more, base]) => rate(more) - rate(base));
    const extra = average(pairs.map(([more, base]) => total(more) - total(base)));
    const interval = meanInterval(differences);
    const points = (value: number) => `${value >= 0 ? '+' : ''}${(value * 100).toFixed(1)}`;
    const verdict =
      pairs.length < 2
        ? 'one seed, no interval'
        : interval.high - interval.low < 1e-9
          ? 'every seed moved by the same amount, so the t-interval has no width; too few seeds to call it, read the pooled intervals'
          : interval.low > 0
            ? 'the interval excludes 0: a gain'
            : interval.high < 0
              ? 'the interval excludes 0: a loss'
              : 'the interval includes 0: not shown either way';
    return [
      `- ${label}: ${points(interval.mean)} points${pairs.length < 2 ? '' : ` [${points(interval.low)}, ${points(interval.high)}]`} over ${pairs.length} seed(s), for ${extra >= 0 ? '+' : ''}${extra.toFixed(0)} CPU s (${verdict})`,
    ];
  };
  const rows = curveRows(points);
  const firstPhase = Math.min(...points.map((p) => p.phaseIndex));
  const pairsOf = (row: CurveRow, base: { phaseIndex: number; search: string }) =>
    points
      .filter((p) => p.phaseIndex === row.phaseIndex && p.search === row.search)
      .flatMap((p): [CurvePoint, CurvePoint][] => {
        const other = byKey.get(key({ seed: p.seed, ...base }));
        return other === undefined ? [] : [[p, other]];
      });
  return rows.flatMap((row) => {
    if (row.search === 'greedy') {
      if (row.phaseIndex === firstPhase) return [];
      const first = rows.find((r) => r.phaseIndex === firstPhase)!;
      return compare(
        `${phaseLabel(row)} against ${phaseLabel(first)} (more training, greedy)`,
        pairsOf(row, { phaseIndex: firstPhase, search: 'greedy' }),
      );
    }
    return compare(
      `${row.search} ${phaseLabel(row)} against greedy from the same checkpoint`,
      pairsOf(row, { phaseIndex: row.phaseIndex, search: 'greedy' }),
    );
  });
}

const phaseLabel = (row: Pick<CurveRow, 'phase' | 'phaseIndex'>) =>
  row.phase === 'sft' ? 'after SFT' : `after ${row.phase} (phase ${row.phaseIndex + 1})`;

/** The compute curve as a Markdown section and its PNG plot. */
export function computeCurveSection(
  points: readonly CurvePoint[],
  context: { split: string; scale: string; commands: readonly string[]; plotPath: string },
): { markdown: string; png: Buffer } {
  const rows = curveRows(points);
  const seeds = [...new Set(points.map((p) => p.seed))].sort((a, b) => a - b);
  const table = [
    '| weights | search | success: mean over seeds [95% t-CI] | pooled [95% Wilson] | training CPU s | eval CPU s / episode | total CPU s | tokens / episode | env steps / episode |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows
      .map((row) =>
        [
          phaseLabel(row),
          row.search,
          Number.isNaN(row.success.low)
            ? `${formatPercent(row.success.mean)} (1 seed)`
            : `${formatPercent(row.success.mean)} [${formatPercent(row.success.low)}, ${formatPercent(row.success.high)}]`,
          `${formatPercent(row.pooled.rate)} [${formatPercent(row.pooled.low)}, ${formatPercent(row.pooled.high)}] n=${row.pooled.episodes}`,
          row.trainCpuSeconds.toFixed(0),
          row.evalCpuSecondsPerEpisode.toFixed(2),
          row.totalCpuSeconds.toFixed(0),
          row.generatedTokensPerEpisode === undefined ? '' : row.generatedTokensPerEpisode.toFixed(0),
          row.envStepsPerEpisode === undefined ? '' : row.envStepsPerEpisode.toFixed(1),
        ].join(' | '),
      )
      .map((line) => `| ${line} |`),
  ];
  const png = chartToPng({
    kind: 'line',
    title: `Success on ${context.split} against compute (mean over seeds)`,
    xLabel: 'total CPU seconds, log10 (training + the evaluation)',
    yLabel: 'success',
    series: curveSeries(rows),
  });
  const markdown = [
    `## Train-time against test-time compute on ${context.split}`,
    '',
    `${seeds.length} seed(s) (${seeds.join(', ')}); ${context.scale}.`,
    'Each row: weights from the end of a phase, played greedily or with a test-time search; success as the mean over seeds with a 95% Student-t interval, then all episodes pooled with a 95% Wilson interval.',
    "Compute is CPU seconds of one process on the same machine: training's up to the checkpoint (rollouts, rewards, updates), plus the evaluation's for all its episodes (generation, scoring, env steps, copies). A difference whose intervals overlap is not evidence either way.",
    '',
    ...table,
    '',
    'Tokens per episode are counted by the searches only (the greedy evaluations of training do not record them).',
    '',
    `![success against compute](${context.plotPath})`,
    '',
    'What more compute bought, as the mean over seeds of the paired difference in success (each seed against itself), with its 95% t-interval:',
    '',
    ...curveFindings(points),
    '',
    "What this does not say: it is one small model trained from scratch, one env and split, and one curriculum; CPU seconds of this implementation, not FLOPs; searches scored with privileged help (the judge ranks plans against the oracle's solution, look-ahead plays candidates on copies of the true env), so they bound what a search without that help could do; and the greedy evaluation is the N = 1 point of every search.",
    '',
    'Commands:',
    '',
    ...context.commands.map((command) => `- \`${command}\``),
    '',
  ].join('\n');
  return { markdown, png };
}

/** One series for training (greedy at each phase end), one per search from each checkpoint. */
function curveSeries(rows: readonly CurveRow[]): LineSeries[] {
  const point = (row: CurveRow) => [Math.log10(Math.max(row.totalCpuSeconds, 1)), row.success.mean] as const;
  const greedy = rows.filter((row) => row.search === 'greedy');
  const series: LineSeries[] = [{ name: 'training, greedy', points: greedy.map(point) }];
  const searched = new Map<string, CurveRow[]>();
  for (const row of rows) {
    if (row.search === 'greedy') continue;
    const scorer = /\((\w+)\)$/.exec(row.search)?.[1] ?? '';
    const kind = row.search.startsWith('best-of') ? 'best-of-N' : 'look-ahead';
    const family = `${kind} ${scorer}, ${row.phase === 'sft' ? 'SFT' : row.phase}`;
    searched.set(family, [...(searched.get(family) ?? []), row]);
  }
  for (const [name, members] of searched) {
    const start = greedy.find((row) => row.phaseIndex === members[0]!.phaseIndex);
    const ordered = [...(start === undefined ? [] : [start]), ...members].sort(
      (a, b) => a.totalCpuSeconds - b.totalCpuSeconds,
    );
    series.push({ name: `search: ${name}`, points: ordered.map(point) });
  }
  return series;
}

const SECTION = (id: string) => [`<!-- section:${id} -->`, `<!-- /section:${id} -->`] as const;

/**
 * Writes `markdown` as the section `id` of the results page at `path`: in place of the section's
 * previous text, or at the end; the rest of the page is kept.
 */
export function writeResultsSection(path: string, id: string, markdown: string): void {
  const [open, close] = SECTION(id);
  const block = `${open}\n${markdown.trimEnd()}\n${close}\n`;
  const page = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const start = page.indexOf(open);
  const end = page.indexOf(close);
  const next =
    start >= 0 && end > start
      ? `${page.slice(0, start)}${block}${page.slice(end + close.length).replace(/^\n/, '')}`
      : `${page.trimEnd()}${page === '' ? '' : '\n\n'}${block}`;
  writeFileSync(path, next);
}
