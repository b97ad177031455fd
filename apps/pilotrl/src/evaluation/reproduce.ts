// `pilotrl reproduce`: the comparison the PilotRL paper makes, at equal RL compute. From one base
// curriculum it derives the variants (ReAct vs AdaPlan; SFT only, stage 1, stages 1+2,
// stages 1+2+3, joint RL from the start), trains each with several seeds, and writes a results
// page: the success table (mean over seeds with a 95% t-interval, and the pooled Wilson interval),
// how each variant was trained, the paper's claims decided on the seed-level interval of each
// difference, bar charts, the exact commands, and beside it the file of per-seed points.
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
import { writeResultsSection } from './compute-curve';
import {
  algorithmName,
  describeTraining,
  REPRODUCE_POINTS_FILE,
  type ReproducePoints,
  reproducePoints,
  trainingOf,
  VARIANTS,
  type Variant,
  type VariantResult,
  writeReproducePoints,
} from './reproduce-results';
import {
  pairedDifference,
  type SeedDifference,
  type SeedValue,
  unpairedDifference,
  verdictOf,
} from './seed-difference';

export {
  DEFAULT_VARIANTS,
  runResult,
  VARIANTS,
  type Variant,
  type VariantResult,
} from './reproduce-results';

/** What each variant trains; the page adds the algorithm its runs' stages used. */
export const variantDescriptions: Record<Variant, string> = {
  'react-sft-only': 'ReAct: SFT on oracle demonstrations only',
  react: 'ReAct: SFT, then the joint stage (outcome reward, no plans)',
  'sft-only': 'AdaPlan: SFT on oracle demonstrations only',
  stage1: 'AdaPlan: SFT, then stage 1 (follow oracle plans)',
  'stage1+2': 'AdaPlan: SFT, then stages 1 and 2',
  'stage1+2+3': 'AdaPlan: SFT, then stages 1, 2 and 3 (PilotRL)',
  'joint-only': 'AdaPlan: SFT, then the joint stage from the start (outcome reward)',
  adaptive: 'AdaPlan: SFT, then stages 1, 2 and 3, the plan revised when the env contradicts it',
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
    adaptive: ['follow', 'plan', 'joint'],
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
          : {
              ...base.agent,
              paradigm: 'adaplan',
              // The ablation's adaptive agent revises on a stall where the base keeps its plan.
              ...(variant === 'adaptive' && base.agent.planRevision === 'never'
                ? { planRevision: 'on-stall' }
                : {}),
            },
      stages: kinds.map((kind, i) => stage(kind, iterations[i]!)),
    },
    `reproduction variant "${variant}"`,
  );
}

export interface ResultsPage {
  markdown: string;
  pngs: Record<string, Buffer>;
  /** The per-seed results the page was computed from, for the points file beside it. */
  points: ReproducePoints;
}

/** One line describing the scale of a base curriculum, so results are read at their size. */
export function describeScale(base: CurriculumConfig): string {
  const dims = modelDimensions(base.policy);
  const rl = base.stages.reduce((sum, s) => sum + s.iterations, 0);
  const stage = base.stages[0];
  const algorithms = [...new Set(trainingOf(base).stages.map(algorithmName))];
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
      : `${rl} RL iterations of ${stage.tasksPerIteration} tasks × group ${stage.groupSize} by ${algorithms.join(' and ')}`,
    `${base.eval.episodes} evaluation episodes per split`,
  ].join('; ');
}

/** The variant whose SFT run `variant` starts from: its warm start, or itself when it is one. */
const startOf = (variant: Variant): Variant => warmStartOf(variant) ?? variant;

/**
 * The difference a - b over seeds of what `pick` reads from each run: paired by seed where both
 * variants start from the same SFT run of each seed, unpaired (Welch) where they do not.
 */
function seedDifference(
  results: readonly VariantResult[],
  a: Variant,
  b: Variant,
  pick: (result: VariantResult) => number | undefined,
) {
  const values = (variant: Variant): SeedValue[] =>
    results.flatMap((r) => {
      const value = r.variant === variant ? pick(r) : undefined;
      return value === undefined ? [] : [{ seed: r.seed, value }];
    });
  const [x, y] = [values(a), values(b)];
  const interval = startOf(a) === startOf(b) ? pairedDifference(x, y) : unpairedDifference(x, y);
  return { interval, ...verdictOf(interval) };
}

/** How an interval of a difference was taken, in words. */
function methodOf(d: SeedDifference): string {
  return d.pairing === 'paired'
    ? `paired by seed, 95% t-interval over ${d.seeds[0]} seeds`
    : `unpaired (Welch), 95% t-interval over ${d.seeds[0]} and ${d.seeds[1]} seeds`;
}

/** The results table, charts, claims and commands as a Markdown page with PNG files beside it. */
export function resultsPage(
  results: readonly VariantResult[],
  commands: readonly string[],
  pageDir: string,
  scale = '',
  points: ReproducePoints = reproducePoints(results),
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
  /** The variant's description, with the algorithms its runs' RL stages were trained by. */
  const label = (variant: Variant) => {
    const algorithms = [
      ...new Set(
        results.filter((r) => r.variant === variant).flatMap((r) => r.training.stages.map(algorithmName)),
      ),
    ];
    return algorithms.length === 0
      ? variantDescriptions[variant]
      : `${variantDescriptions[variant]}, by ${algorithms.join(' and ')}`;
  };
  const header = `| variant | ${splits.map((s) => `${s}: mean over seeds [95% t-CI] · pooled [95% Wilson]`).join(' | ')} |`;
  const rule = `|---|${splits.map(() => '---').join('|')}|`;
  const rows = variants.map((variant) => {
    const cells = splits.map((split) => {
      const s = summary(variant, split);
      return `${formatPercent(s.mean)} [${formatPercent(Math.max(0, s.low))}, ${formatPercent(Math.min(1, s.high))}] · ${formatPercent(
        s.pooled.rate,
      )} [${formatPercent(s.pooled.low)}, ${formatPercent(s.pooled.high)}] (seeds: ${s.rates.map((rate) => formatPercent(rate)).join(', ')})`;
    });
    return `| ${label(variant)} | ${cells.join(' | ')} |`;
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
  /** The mean final plan-judge score over seeds, where every seed's plans were judged. */
  const judge = (variant: Variant, split: string) => {
    const scores = results
      .filter((r) => r.variant === variant)
      .map((r) => r.judgeScore[split])
      .filter((score): score is number => score !== undefined);
    return scores.length === 0 ? undefined : { ...meanInterval(scores), seeds: scores.length };
  };
  // Every claim "a is higher than b" is decided on the seed-level interval of the difference; the
  // figures of each side stand beside it for reference.
  const claimLine = (
    difference: ReturnType<typeof seedDifference>,
    figures: string,
    formatDifference: (value: number) => string,
    unit: string,
    reference: string,
  ) => {
    const { interval, verdict, why } = difference;
    if (interval === undefined) return `${verdict} (${figures}; ${why}; ${reference})`;
    return `${verdict} (${figures}: difference ${formatDifference(interval.difference)}${unit} [${formatDifference(
      interval.low,
    )}, ${formatDifference(interval.high)}], ${methodOf(interval)}; ${why}; ${reference})`;
  };
  const signed = (value: number, digits: number) =>
    `${value >= 0 ? '+' : '-'}${Math.abs(value).toFixed(digits)}`;
  const claims = (split: string) => {
    const compare = (a: Variant, b: Variant) => {
      if (!variants.includes(a) || !variants.includes(b)) return 'not measured';
      const [x, y] = [summary(a, split), summary(b, split)];
      const wilson = (s: typeof x) =>
        `${formatPercent(s.pooled.rate)} [${formatPercent(s.pooled.low)}, ${formatPercent(s.pooled.high)}]`;
      return claimLine(
        seedDifference(results, a, b, (r) => r.success[split]?.rate),
        `${formatPercent(x.mean)} vs ${formatPercent(y.mean)}`,
        (value) => signed(value * 100, 1),
        ' points',
        `pooled for reference: ${wilson(x)} vs ${wilson(y)}, 95% Wilson`,
      );
    };
    const judged = (a: Variant, b: Variant) => {
      const [x, y] = [judge(a, split), judge(b, split)];
      if (x === undefined || y === undefined) return 'not measured';
      const tInterval = (s: typeof x) => `${s.mean.toFixed(2)} [${s.low.toFixed(2)}, ${s.high.toFixed(2)}]`;
      return claimLine(
        seedDifference(results, a, b, (r) => r.judgeScore[split]),
        `${x.mean.toFixed(2)} vs ${y.mean.toFixed(2)}`,
        (value) => signed(value, 2),
        '',
        `each side for reference: ${tInterval(x)} vs ${tInterval(y)}, 95% t over seeds`,
      );
    };
    return [
      `- AdaPlan (stages 1+2+3) beats ReAct on ${split}: ${compare('stage1+2+3', 'react')}`,
      `- Progressive (stages 1+2+3) beats joint RL from the start on ${split}: ${compare('stage1+2+3', 'joint-only')}`,
      `- RL (stages 1+2+3) beats SFT only on ${split}: ${compare('stage1+2+3', 'sft-only')}`,
      `- Stage 2 raises the judged plan quality on ${split} (stages 1+2 vs stage 1): ${judged('stage1+2', 'stage1')}`,
      ...(variants.includes('adaptive')
        ? [
            `- Adaptive plans beat fixed ones after stages 1+2+3 on ${split}: ${compare('adaptive', 'stage1+2+3')}`,
          ]
        : []),
    ];
  };
  const judgeRows = variants.flatMap((variant) => {
    const cells = splits.map((split) => judge(variant, split));
    if (cells.every((cell) => cell === undefined)) return [];
    return [
      `| ${label(variant)} | ${cells
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
  /** How each variant's runs were trained, once per distinct recipe (seeds aside, they agree). */
  const trainingLines = variants.map((variant) => {
    const recipes = [
      ...new Set(results.filter((r) => r.variant === variant).map((r) => describeTraining(r.training))),
    ];
    return `- ${variant}: ${recipes.join(' | ')}`;
  });
  const pointsPath = `results/${REPRODUCE_POINTS_FILE}`;
  const markdown = [
    '# Results: PilotRL reproduction',
    '',
    `Variants at equal RL compute (the same number of RL iterations, tasks and group size), ${seeds.length} seed(s) each (${seeds.join(', ')}).`,
    ...(scale === '' ? [] : [`Scale: ${scale}.`]),
    'Each cell: mean final success over seeds with a 95% Student-t interval, then all episodes pooled with a 95% Wilson interval.',
    '',
    header,
    rule,
    ...rows,
    '',
    '## How each variant is trained',
    '',
    ...trainingLines,
    '',
    "## The paper's claims, as measured here",
    '',
    'Each claim is decided on the difference between its two variants over seeds, with a 95% Student-t interval: "shown" when the interval excludes 0 in the claimed direction, "contradicted" when it excludes 0 in the other, "not shown" otherwise (also when it has no width, every seed having moved by the same amount).',
    "Paired by seed where both variants start from the same SFT run of each seed (every RL variant of a paradigm forks that paradigm's SFT-only run of the seed, so the SFT-only variant and the AdaPlan RL variants pair with each other): the t-interval of the per-seed differences, in which what the shared start put in both cancels.",
    "Unpaired where they do not (ReAct against AdaPlan: separate SFT runs, different agents): Welch's interval over the two sets of seed values, which assumes no shared start and no equal spreads.",
    'The pooled Wilson intervals beside a success claim count episodes, not seeds: they leave out how much a result moves from seed to seed, so they are there for reference and decide nothing.',
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
    '## Per-seed points',
    '',
    `The figures above come from [${pointsPath}](${pointsPath}), one entry per variant and seed: its run directory, how it was trained (\`training\`), its final successes and episodes per split (\`success\`), mean plan-judge score per split (\`judgeScore\`), successes per task type (\`byTaskType\`), and CPU seconds (\`trainCpuSeconds\`, training with the shared SFT included; \`evalCpuSeconds\`, the final evaluation per split). Fields its \`unknown\` list names were not recorded.`,
    "To recompute them: a seed's rate is successes / total; a cell is the mean of its seeds' rates ± t(0.975, n − 1) · s / √n, then the Wilson interval (z = 1.96) of the summed successes over the summed episodes.",
    "A paired claim's interval is the mean of the per-seed differences ± t(0.975, n − 1) · s_d / √n; an unpaired one is (mean_a − mean_b) ± t(0.975, ν) · √(s_a² / n_a + s_b² / n_b), with ν = (s_a² / n_a + s_b² / n_b)² / ((s_a² / n_a)² / (n_a − 1) + (s_b² / n_b)² / (n_b − 1)).",
    '`resultsPage(readReproducePoints(file).results, ...)` (apps/pilotrl/src/evaluation) renders this section from the file.',
    '',
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
  return { markdown, pngs, points };
}

/**
 * Writes the page as the reproduction's section of the results page at `path` (other sections,
 * such as the compute curve's, are kept), and its PNGs and per-seed points file to `results/` beside it.
 */
export function writeResultsPage(page: ResultsPage, path: string): void {
  const dir = join(dirname(path), 'results');
  mkdirSync(dir, { recursive: true });
  for (const [name, png] of Object.entries(page.pngs)) writeFileSync(join(dir, name), png);
  writeReproducePoints(join(dir, REPRODUCE_POINTS_FILE), page.points);
  writeResultsSection(path, 'reproduction', page.markdown);
}
