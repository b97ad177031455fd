// The records a run writes besides checkpoints: one metrics line per iteration, one eval line per
// split evaluated, and sampled episodes. The report and the reproduction read them back.
import { summariseEpisodes } from '@pilotrl/agent';
import { type Episode, episodeSchema } from '@pilotrl/core';
import { z } from 'zod';
import { type EvalDiagnostics, evalDiagnostics, evalDiagnosticsSchema } from '../evaluation/eval-diagnostics';
import { readJsonl } from './jsonl';

/** Per-iteration metrics under standard names, plus where in the curriculum they were taken. */
export const metricsRecordSchema = z
  .object({
    step: z.number().int().nonnegative(),
    phase: z.string(),
    phaseIndex: z.number().int().nonnegative(),
    iteration: z.number().int().nonnegative(),
  })
  .catchall(z.union([z.number(), z.string(), z.null()]));
export type MetricsRecord = z.infer<typeof metricsRecordSchema>;

const proportionSchema = z.object({
  successes: z.number(),
  total: z.number(),
  rate: z.number(),
  low: z.number(),
  high: z.number(),
});

export const evalRecordSchema = z.object({
  step: z.number().int().nonnegative(),
  phase: z.string(),
  /** The env of a mixture the split belongs to; absent in a single-env run. */
  env: z.string().optional(),
  split: z.string(),
  paradigm: z.string(),
  success: proportionSchema,
  byTaskType: z.record(z.string(), proportionSchema),
  meanSteps: z.number(),
  formatErrorRate: z.number(),
  /** Mean plan-judge score (1-5, mean of the rubric criteria) when plans were judged. */
  judgeScore: z.number().nullable().default(null),
  /**
   * CPU seconds of the trainer process the split's evaluation took (rollouts, judging, the play with
   * the oracle's plans).
   */
  cpuSeconds: z.number().nonnegative().optional(),
  /**
   * What explains a miss: plan-follow rate, plan revisions and the success with and without them,
   * invalid or malformed commands by turn (evaluation/eval-diagnostics.ts). Absent in records
   * written before they were measured.
   */
  diagnostics: evalDiagnosticsSchema.optional(),
  /**
   * With `eval.oraclePlan`: the split played again by the AdaPlan agent given the env oracle's plan
   * (kept in force, as stage 1 plays), the act policy's ceiling; absent otherwise.
   */
  oraclePlan: z
    .object({
      success: proportionSchema,
      meanSteps: z.number(),
      formatErrorRate: z.number(),
      diagnostics: evalDiagnosticsSchema,
    })
    .optional(),
});
export type EvalRecord = z.infer<typeof evalRecordSchema>;

/** The eval record of `episodes`, all played on `split` by a `paradigm` agent. */
export function evalRecordOf(
  episodes: readonly Episode[],
  where: { step: number; phase: string; env?: string; split: string; paradigm: string },
  judgeScore: number | null,
): EvalRecord {
  const { diagnostics, ...figures } = splitFigures(episodes);
  return { ...where, ...figures, judgeScore, diagnostics };
}

/**
 * What the episodes of one split come to: success overall and per task type, steps, format errors
 * and the diagnostics.
 */
export function splitFigures(episodes: readonly Episode[]): Pick<
  EvalRecord,
  'success' | 'byTaskType' | 'meanSteps' | 'formatErrorRate'
> & {
  diagnostics: EvalDiagnostics;
} {
  const summary = summariseEpisodes(episodes);
  const proportion = (s: {
    successes: number;
    episodes: number;
    successRate: number;
    ci95: { low: number; high: number };
  }) => ({
    successes: s.successes,
    total: s.episodes,
    rate: s.successRate,
    low: s.ci95.low,
    high: s.ci95.high,
  });
  return {
    success: proportion(summary),
    byTaskType: Object.fromEntries(
      Object.entries(summary.byTaskType).map(([type, s]) => [type, proportion(s)]),
    ),
    meanSteps: summary.meanSteps,
    formatErrorRate: summary.formatErrorRate,
    diagnostics: evalDiagnostics(episodes),
  };
}

export const sampledEpisodeSchema = z.object({
  step: z.number().int().nonnegative(),
  phase: z.string(),
  episode: episodeSchema,
});
export type SampledEpisode = { step: number; phase: string; episode: Episode };

export function readMetrics(path: string): MetricsRecord[] {
  return readJsonl(path, metricsRecordSchema);
}

export function readEvals(path: string): EvalRecord[] {
  return readJsonl(path, evalRecordSchema);
}

export function readSampledEpisodes(path: string): SampledEpisode[] {
  return readJsonl(path, sampledEpisodeSchema);
}
