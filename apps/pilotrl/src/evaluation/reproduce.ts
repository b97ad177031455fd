// `pilotrl reproduce`: the comparison the PilotRL paper makes, at equal RL compute. From one base
// curriculum it derives the variants (ReAct vs AdaPlan; SFT only, stage 1, stages 1+2,
// stages 1+2+3, joint RL from the start), trains each with several seeds, and writes a results
// page with the success table (mean over seeds with a 95% t-interval, and the pooled Wilson
// interval), bar charts and the exact commands.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { ConfigError, formatPercent, meanInterval, wilsonInterval } from '@pilotrl/core';
import {
  type CurriculumConfig,
  envCurricula,
  isMixture,
  modelDimensions,
  parseConfig,
  type StageConfig,
} from '../config/curriculum-config';
import { chartToPng } from '../reporting/plot/chart-png';
import { finalEvals } from '../reporting/report';
import { runPaths } from '../run/run-dir';
import { readEvals } from '../run/run-records';
import { writeResultsSection } from './compute-curve';

export const VARIANTS = [
  'react-sft-only',
  'react',
  'sft-only',
  'stage1',
  'stage1+2',
  'stage1+2+3',
  'joint-only',
] as const;
export type Variant = (typeof VARIANTS)[number];

export const variantDescriptions: Record<Variant, string> = {
  'react-sft-only': 'ReAct: SFT on oracle demonstrations only',
  react: 'ReAct: SFT, then outcome RL (no plans)',
  'sft-only': 'AdaPlan: SFT on oracle demonstrations only',
  stage1: 'AdaPlan: SFT, then stage 1 (follow oracle plans)',
  'stage1+2': 'AdaPlan: SFT, then stages 1 and 2',
  'stage1+2+3': 'AdaPlan: SFT, then stages 1, 2 and 3 (PilotRL)',
  'joint-only': 'AdaPlan: SFT, then joint outcome RL from the start',
};

/**
 * The variant whose finished run is `variant`'s warm start: the SFT-only run of its paradigm. Every
 * variant of one seed and paradigm shares that SFT phase, so it is trained once and forked.
 */
export function warmStartOf(variant: Variant): Variant | undefined {
  if (variant === 'react') return 'react-sft-only';
  if (variant === 'react-sft-only' || variant === 'sft-only') return undefined;
  return 'sft-only';
}

/** Splits `total` iterations into `parts` near-equal positive shares. */
function shares(total: number, parts: number): number[] {
  return Array.from(
    { length: parts },
    (_, i) => Math.floor((total * (i + 1)) / parts) - Math.floor((total * i) / parts),
  );
}

/**
 * The config of `variant` derived from `base`: same env, policy, SFT and per-iteration settings;
 * every RL variant gets the same total number of RL iterations as the base curriculum.
 */
export function variantConfig(base: CurriculumConfig, variant: Variant, seed: number): CurriculumConfig {
  if (isMixture(base.env)) {
    throw new ConfigError(
      'reproduce compares variants on one env; its base curriculum has an env mixture (give env: { id, ... })',
    );
  }
  if (base.sft === undefined)
    throw new ConfigError('reproduce needs a base curriculum with an `sft` section');
  const template = base.stages[0];
  if (template === undefined)
    throw new ConfigError('reproduce needs a base curriculum with at least one stage');
  const total = base.stages.reduce((sum, s) => sum + s.iterations, 0);
  const rewardsOf = (kind: StageConfig['kind']) =>
    base.stages.find((s) => s.kind === kind)?.rewards ??
    {
      follow: { outcome: 1, plan_adherence: 0.5 },
      plan: { outcome: 1, plan_quality: 0.5 },
      joint: { outcome: 1 },
    }[kind];
  // Settings of one stage kind (stage 1's plan source and candidates, stage 2's judge) come from
  // the base's stage of that kind, the rest from its first stage.
  const kindSettings = (kind: StageConfig['kind']) => {
    const own = base.stages.find((s) => s.kind === kind) as
      | (StageConfig & { planSource?: unknown; planCandidates?: unknown; judge?: unknown })
      | undefined;
    if (own === undefined) return {};
    const { planSource, planCandidates, judge } = own;
    return Object.fromEntries(
      Object.entries({ planSource, planCandidates, judge }).filter(([, value]) => value !== undefined),
    );
  };
  const stage = (kind: StageConfig['kind'], iterations: number) => {
    const {
      kind: _kind,
      name: _name,
      ...rest
    } = template as StageConfig & { planSource?: unknown; planCandidates?: unknown; judge?: unknown };
    const { planSource: _p, planCandidates: _c, judge: _j, ...common } = rest;
    return { ...common, ...kindSettings(kind), kind, iterations, rewards: rewardsOf(kind) };
  };
  const schedules: Record<Variant, StageConfig['kind'][]> = {
    'react-sft-only': [],
    react: ['joint'],
    'sft-only': [],
    stage1: ['follow'],
    'stage1+2': ['follow', 'plan'],
    'stage1+2+3': ['follow', 'plan', 'joint'],
    'joint-only': ['joint'],
  };
  const kinds = schedules[variant];
  if (total < 3)
    throw new ConfigError(
      `reproduce splits the base's ${total} RL iterations over up to 3 stages; give at least 3`,
    );
  const iterations = shares(total, Math.max(1, kinds.length));
  const { stages: _stages, ...rest } = base;
  return parseConfig(
    {
      ...rest,
      name: `${base.name}-${variant}-seed${seed}`,
      seed,
      policy: { ...base.policy, seed },
      // ReAct has no plans, so a base with plan steps drops them for it.
      agent:
        variant === 'react' || variant === 'react-sft-only'
          ? { ...base.agent, paradigm: 'react', plan: 'free-text' }
          : { ...base.agent, paradigm: 'adaplan' },
      stages: kinds.map((kind, i) => stage(kind, iterations[i]!)),
    },
    `reproduction variant "${variant}"`,
  );
}

export interface VariantResult {
  variant: Variant;
  seed: number;
  runDir: string;
  /** Final success per split. */
  success: Record<string, { successes: number; total: number; rate: number }>;
  /** Final mean plan-judge score (1-5) per split, where plans were judged. */
  judgeScore: Record<string, number>;
  /** Final successes and episodes per task type, per split. */
  byTaskType: Record<string, Record<string, { successes: number; total: number }>>;
}

export interface ResultsPage {
  markdown: string;
  pngs: Record<string, Buffer>;
}

/** The final success of every split of a finished run. */
export function runResult(variant: Variant, seed: number, runDir: string): VariantResult {
  const finals = finalEvals(readEvals(runPaths(runDir).evals));
  return {
    variant,
    seed,
    runDir,
    success: Object.fromEntries(
      finals.map((e) => [
        e.split,
        { successes: e.success.successes, total: e.success.total, rate: e.success.rate },
      ]),
    ),
    judgeScore: Object.fromEntries(
      finals.flatMap((e) => (e.judgeScore === null ? [] : [[e.split, e.judgeScore]])),
    ),
    byTaskType: Object.fromEntries(
      finals.map((e) => [
        e.split,
        Object.fromEntries(
          Object.entries(e.byTaskType).map(([type, p]) => [type, { successes: p.successes, total: p.total }]),
        ),
      ]),
    ),
  };
}

/** The results table, charts and commands as a Markdown page with PNG files beside it. */
/** One line describing the scale of a base curriculum, so results are read at their size. */
export function describeScale(base: CurriculumConfig): string {
  const dims = modelDimensions(base.policy);
  const rl = base.stages.reduce((sum, s) => sum + s.iterations, 0);
  const stage = base.stages[0];
  return [
    `base curriculum \`${base.name}\` on ${envCurricula(base)
      .map(({ config }) => `env \`${config.env.id}\` (at most ${config.env.maxSteps} steps per episode)`)
      .join(', ')}`,
    `policy d${dims.dModel}, ${dims.layers} layer(s), ${dims.heads} heads, context ${dims.contextLength}`,
    base.sft === undefined
      ? 'no SFT'
      : `SFT ${base.sft.steps} steps of ${base.sft.batchSize} on ${base.sft.demonstrations} oracle tasks`,
    stage === undefined
      ? 'no RL'
      : `${rl} RL iterations of ${stage.tasksPerIteration} tasks × group ${stage.groupSize}`,
    `${base.eval.episodes} evaluation episodes per split`,
  ].join('; ');
}

export function resultsPage(
  results: readonly VariantResult[],
  commands: readonly string[],
  pageDir: string,
  scale = '',
): ResultsPage {
  const splits = [...new Set(results.flatMap((r) => Object.keys(r.success)))];
  const variants = VARIANTS.filter((v) => results.some((r) => r.variant === v));
  const seeds = [...new Set(results.map((r) => r.seed))];
  const summary = (variant: Variant, split: string) => {
    const runs = results.filter((r) => r.variant === variant && r.success[split] !== undefined);
    const rates = runs.map((r) => r.success[split]!.rate);
    const pooled = wilsonInterval(
      runs.reduce((sum, r) => sum + r.success[split]!.successes, 0),
      runs.reduce((sum, r) => sum + r.success[split]!.total, 0),
    );
    return { ...meanInterval(rates), pooled, runs: runs.length, rates };
  };
  const header = `| variant | ${splits.map((s) => `${s}: mean over seeds [95% t-CI] · pooled [95% Wilson]`).join(' | ')} |`;
  const rule = `|---|${splits.map(() => '---').join('|')}|`;
  const rows = variants.map((variant) => {
    const cells = splits.map((split) => {
      const s = summary(variant, split);
      return `${formatPercent(s.mean)} [${formatPercent(Math.max(0, s.low))}, ${formatPercent(Math.min(1, s.high))}] · ${formatPercent(
        s.pooled.rate,
      )} [${formatPercent(s.pooled.low)}, ${formatPercent(s.pooled.high)}] (seeds: ${s.rates.map(formatPercent).join(', ')})`;
    });
    return `| ${variantDescriptions[variant]} | ${cells.join(' | ')} |`;
  });
  const pngs: Record<string, Buffer> = {};
  for (const split of splits) {
    pngs[`results-${split}.png`] = chartToPng({
      kind: 'bar',
      title: `Final success on ${split} (mean over seeds, 95% t-CI)`,
      yLabel: 'success',
      yRange: [0, 1],
      groups: variants.map((variant) => {
        const s = summary(variant, split);
        return {
          label: variant,
          bars: [{ name: split, value: s.mean, low: Math.max(0, s.low), high: Math.min(1, s.high) }],
        };
      }),
    });
  }
  // A claim that `a` beats `b`: shown when the intervals are disjoint in its favour, contradicted
  // when they are disjoint against it, not shown when they overlap.
  const verdict = (
    x: { mean: number; low: number; high: number },
    y: { mean: number; low: number; high: number },
    figures: string,
  ) => {
    const direction = x.mean > y.mean ? 'higher' : x.mean === y.mean ? 'equal' : 'lower';
    if (x.low <= y.high && y.low <= x.high)
      return `not shown (${direction}: ${figures}; the 95% intervals overlap)`;
    return `${x.mean > y.mean ? 'shown' : 'contradicted'} (${figures}; the 95% intervals are disjoint)`;
  };
  const claims = (split: string) => {
    const compare = (a: Variant, b: Variant) => {
      if (!variants.includes(a) || !variants.includes(b)) return 'not measured';
      const [x, y] = [summary(a, split), summary(b, split)];
      return verdict(
        { mean: x.mean, low: x.pooled.low, high: x.pooled.high },
        { mean: y.mean, low: y.pooled.low, high: y.pooled.high },
        `${formatPercent(x.mean)} vs ${formatPercent(y.mean)}`,
      );
    };
    const judged = (a: Variant, b: Variant) => {
      const [x, y] = [judge(a, split), judge(b, split)];
      if (x === undefined || y === undefined) return 'not measured';
      if (x.seeds < 2 || y.seeds < 2) {
        return `not shown (${x.mean.toFixed(2)} vs ${y.mean.toFixed(2)}; one seed gives no interval over seeds)`;
      }
      return verdict(
        x,
        y,
        `${x.mean.toFixed(2)} vs ${y.mean.toFixed(2)}, mean over seeds with a 95% t-interval`,
      );
    };
    return [
      `- AdaPlan (stages 1+2+3) beats ReAct on ${split}: ${compare('stage1+2+3', 'react')}`,
      `- Progressive (stages 1+2+3) beats joint RL from the start on ${split}: ${compare('stage1+2+3', 'joint-only')}`,
      `- RL (stages 1+2+3) beats SFT only on ${split}: ${compare('stage1+2+3', 'sft-only')}`,
      `- Stage 2 raises the judged plan quality on ${split} (stages 1+2 vs stage 1): ${judged('stage1+2', 'stage1')}`,
    ];
  };
  /** The mean final plan-judge score over seeds, where every seed's plans were judged. */
  const judge = (variant: Variant, split: string) => {
    const scores = results
      .filter((r) => r.variant === variant)
      .map((r) => r.judgeScore[split])
      .filter((score): score is number => score !== undefined);
    return scores.length === 0 ? undefined : { ...meanInterval(scores), seeds: scores.length };
  };
  const judgeRows = variants.flatMap((variant) => {
    const cells = splits.map((split) => judge(variant, split));
    if (cells.every((cell) => cell === undefined)) return [];
    return [
      `| ${variantDescriptions[variant]} | ${cells
        .map((cell) =>
          cell === undefined
            ? '—'
            : `${cell.mean.toFixed(2)} [${cell.low.toFixed(2)}, ${cell.high.toFixed(2)}]`,
        )
        .join(' | ')} |`,
    ];
  });
  const taskTypes = [
    ...new Set(results.flatMap((r) => Object.values(r.byTaskType).flatMap((types) => Object.keys(types)))),
  ].sort();
  const taskTypeTable = (split: string) => [
    `| variant | ${taskTypes.join(' | ')} |`,
    `|---|${taskTypes.map(() => '---').join('|')}|`,
    ...variants.map((variant) => {
      const runs = results.filter((r) => r.variant === variant);
      const cells = taskTypes.map((type) => {
        const successes = runs.reduce((sum, r) => sum + (r.byTaskType[split]?.[type]?.successes ?? 0), 0);
        const total = runs.reduce((sum, r) => sum + (r.byTaskType[split]?.[type]?.total ?? 0), 0);
        return total === 0 ? '—' : `${formatPercent(successes / total)} (${successes}/${total})`;
      });
      return `| ${variant} | ${cells.join(' | ')} |`;
    }),
  ];
  const markdown = [
    '# Results: PilotRL reproduction',
    '',
    `Variants at equal RL compute (the same number of RL iterations, tasks and group size), ${seeds.length} seed(s) each (${seeds.join(', ')}).`,
    ...(scale === '' ? [] : [`Scale: ${scale}.`]),
    'Each cell: mean final success over seeds with a 95% Student-t interval, then all episodes pooled with a 95% Wilson interval.',
    'A difference whose intervals overlap is not evidence either way.',
    '',
    header,
    rule,
    ...rows,
    '',
    "## The paper's claims, as measured here",
    '',
    ...splits.flatMap(claims),
    '',
    ...(judgeRows.length === 0
      ? []
      : [
          '## Plan quality',
          '',
          'Mean final plan-judge score (1-5: correctness, followability, standardization) over seeds, with a 95% t-interval.',
          '',
          `| variant | ${splits.join(' | ')} |`,
          `|---|${splits.map(() => '---').join('|')}|`,
          ...judgeRows,
          '',
        ]),
    ...(taskTypes.length === 0
      ? []
      : [
          '## Success per task type',
          '',
          'Final successes over all seeds, per task type.',
          '',
          ...splits.flatMap((split) => [`### ${split}`, '', ...taskTypeTable(split), '']),
        ]),
    '## Plots',
    '',
    ...Object.keys(pngs).map((name) => `![${name}](${relative(pageDir, join(pageDir, 'results', name))})`),
    '',
    '## Commands',
    '',
    '```sh',
    ...commands,
    '```',
    '',
    '## Runs',
    '',
    ...results.map((r) => `- ${r.variant}, seed ${r.seed}: \`${r.runDir}\``),
    '',
  ].join('\n');
  return { markdown, pngs };
}

/**
 * Writes the page as the reproduction's section of the results page at `path` (other sections,
 * such as the compute curve's, are kept) and its PNGs to `results/` beside it.
 */
export function writeResultsPage(page: ResultsPage, path: string): void {
  const dir = join(dirname(path), 'results');
  mkdirSync(dir, { recursive: true });
  for (const [name, png] of Object.entries(page.pngs)) writeFileSync(join(dir, name), png);
  writeResultsSection(path, 'reproduction', page.markdown);
}
