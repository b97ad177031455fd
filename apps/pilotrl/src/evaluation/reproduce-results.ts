// The per-seed results of `pilotrl reproduce`: the variants it compares, one result per variant and
// seed read from its finished run (final success and plan-judge score per split, CPU seconds, how
// it was trained), and the points file of them kept beside the results page, from which every
// figure of the page can be computed again.
import { readFileSync, writeFileSync } from 'node:fs';
import { InvalidArgumentError, parseOrThrow, printable } from '@pilotrl/core';
import { z } from 'zod';
import type { CurriculumConfig } from '../config/curriculum-config';
import { finalEvals } from '../reporting/report';
import { readRunConfig, runPaths } from '../run/run-dir';
import { readEvals, readMetrics } from '../run/run-records';

export const VARIANTS = [
  'react-sft-only',
  'react',
  'sft-only',
  'stage1',
  'stage1+2',
  'stage1+2+3',
  'joint-only',
  'adaptive',
] as const;
export type Variant = (typeof VARIANTS)[number];

/**
 * The variants `reproduce` trains unless told: all but `adaptive`, the paper's adaptive-vs-fixed
 * plan ablation, whose revisions cost several times the rollout compute (`--variants` adds it).
 */
export const DEFAULT_VARIANTS: readonly Variant[] = VARIANTS.filter((variant) => variant !== 'adaptive');

const count = z.number().int().nonnegative();

/** How a run was trained: its SFT, then each RL stage with the algorithm that trained it. */
export const trainingSchema = z.object({
  sft: z.object({ demonstrations: count, steps: count, batchSize: count }).nullable(),
  stages: z.array(
    z.object({
      kind: z.string(),
      iterations: count,
      tasksPerIteration: count,
      groupSize: count,
      algorithm: z.enum(['policy-gradient', 'expert-iteration']),
      /** The advantage estimator of a policy-gradient stage; null for expert iteration. */
      estimator: z.string().nullable(),
      rewards: z.record(z.string(), z.number()),
    }),
  ),
});
export type Training = z.infer<typeof trainingSchema>;

const successSchema = z
  .object({ successes: count, total: count, rate: z.number().min(0).max(1) })
  .refine(
    (s) => s.successes <= s.total && Math.abs(s.rate - (s.total === 0 ? 0 : s.successes / s.total)) < 1e-9,
    {
      error: 'needs successes <= total and rate = successes / total',
    },
  );

export const variantResultSchema = z.object({
  variant: z.enum(VARIANTS),
  seed: z.number().int(),
  /** The run's directory, as the reproduction named it. */
  runDir: z.string(),
  training: trainingSchema,
  /** CPU seconds of training up to its end, the shared SFT included; null where it was not recorded. */
  trainCpuSeconds: z.number().nonnegative().nullable(),
  /** Final successes and episodes per split. */
  success: z.record(z.string(), successSchema),
  /** Final mean plan-judge score (1-5) per split, where plans were judged. */
  judgeScore: z.record(z.string(), z.number()),
  /** CPU seconds of the final evaluation per split, where recorded. */
  evalCpuSeconds: z.record(z.string(), z.number().nonnegative()),
  /** Final successes and episodes per task type, per split. */
  byTaskType: z.record(z.string(), z.record(z.string(), z.object({ successes: count, total: count }))),
});
export type VariantResult = z.infer<typeof variantResultSchema>;

/** The file of per-seed points beside the results page. */
export const reproducePointsSchema = z.object({
  format: z.literal(1),
  /** Where the points come from. */
  source: z.string(),
  /** Fields of `results` the source did not record: their empty records or nulls mean "unknown". */
  unknown: z.array(z.enum(['trainCpuSeconds', 'evalCpuSeconds', 'judgeScore', 'byTaskType'])),
  results: z.array(variantResultSchema),
});
export type ReproducePoints = z.infer<typeof reproducePointsSchema>;

/** The points file's name, in the `results/` folder beside the results page (`.generated.`: written by the tool, so the formatter leaves it alone). */
export const REPRODUCE_POINTS_FILE = 'reproduce-points.generated.json';

/** How `config` trains: what a result records of it. */
export function trainingOf(config: CurriculumConfig): Training {
  return {
    sft:
      config.sft === undefined
        ? null
        : {
            demonstrations: config.sft.demonstrations,
            steps: config.sft.steps,
            batchSize: config.sft.batchSize,
          },
    stages: config.stages.map((stage) => ({
      kind: stage.kind,
      iterations: stage.iterations,
      tasksPerIteration: stage.tasksPerIteration,
      groupSize: stage.groupSize,
      algorithm: stage.algorithm,
      estimator: stage.algorithm === 'policy-gradient' ? stage.estimator : null,
      rewards: Object.fromEntries(Object.entries(stage.rewards).filter(([, weight]) => weight !== 0)),
    })),
  };
}

/** A stage's algorithm in words: `expert iteration`, `policy gradient (grpo advantages)`. */
export function algorithmName(stage: Training['stages'][number]): string {
  return stage.algorithm === 'expert-iteration'
    ? 'expert iteration'
    : `policy gradient (${stage.estimator ?? 'unknown'} advantages)`;
}

/** How a run was trained, in one line: its SFT, then each stage with its algorithm and rewards. */
export function describeTraining(training: Training): string {
  const sft =
    training.sft === null
      ? 'no SFT'
      : `SFT (${training.sft.steps} steps of ${training.sft.batchSize} on ${training.sft.demonstrations} oracle demonstrations)`;
  const stages = training.stages.map(
    (stage) =>
      `${stage.kind} by ${algorithmName(stage)}, ${stage.iterations} iteration(s) of ${stage.tasksPerIteration} tasks × group ${stage.groupSize}, rewards ${Object.entries(
        stage.rewards,
      )
        .map(([name, weight]) => `${name} ${weight}`)
        .join(' + ')}`,
  );
  return stages.length === 0 ? `${sft} only` : `${sft}, then ${stages.join('; then ')}`;
}

/** The final results of a finished run of `variant` and `seed`, with how it was trained. */
export function runResult(variant: Variant, seed: number, runDir: string): VariantResult {
  const paths = runPaths(runDir);
  const finals = finalEvals(readEvals(paths.evals));
  const trainCpu = readMetrics(paths.metrics)
    .map((record) => record['compute/train_cpu_seconds'])
    .filter((seconds): seconds is number => typeof seconds === 'number')
    .at(-1);
  return {
    variant,
    seed,
    runDir,
    training: trainingOf(readRunConfig(runDir)),
    trainCpuSeconds: trainCpu ?? null,
    success: Object.fromEntries(
      finals.map((e) => [
        e.split,
        { successes: e.success.successes, total: e.success.total, rate: e.success.rate },
      ]),
    ),
    judgeScore: Object.fromEntries(
      finals.flatMap((e) => (e.judgeScore === null ? [] : [[e.split, e.judgeScore]])),
    ),
    evalCpuSeconds: Object.fromEntries(
      finals.flatMap((e) => (e.cpuSeconds === undefined ? [] : [[e.split, e.cpuSeconds]])),
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

/** The points file of `results`, read from their runs. */
export function reproducePoints(results: readonly VariantResult[]): ReproducePoints {
  return {
    format: 1,
    source: 'the final evaluation of each run in `results` (its runDir), written by pilotrl reproduce',
    unknown: results.some((r) => r.trainCpuSeconds === null) ? ['trainCpuSeconds'] : [],
    results: [...results],
  };
}

export function writeReproducePoints(path: string, points: ReproducePoints): void {
  writeFileSync(path, `${JSON.stringify(reproducePointsSchema.parse(points), null, 2)}\n`);
}

/** The points file at `path`, checked against its schema. */
export function readReproducePoints(path: string): ReproducePoints {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (cause) {
    throw new InvalidArgumentError(
      `${path} is not a readable points file: ${printable((cause as Error).message)}; write it again with pilotrl reproduce`,
      { cause },
    );
  }
  return parseOrThrow(reproducePointsSchema, raw, `points file ${path}`);
}
