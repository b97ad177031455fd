// The records a run writes besides checkpoints: one metrics line per iteration, one eval line per
// split evaluated, and sampled episodes. The report and the reproduction read them back.
import { summariseEpisodes } from '@pilotrl/agent';
import { type Episode, episodeSchema } from '@pilotrl/core';
import { z } from 'zod';
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
  /** CPU seconds of the trainer process the split's evaluation took (rollouts and judging). */
  cpuSeconds: z.number().nonnegative().optional(),
});
export type EvalRecord = z.infer<typeof evalRecordSchema>;

/** The eval record of `episodes`, all played on `split` by a `paradigm` agent. */
export function evalRecordOf(
  episodes: readonly Episode[],
  where: { step: number; phase: string; env?: string; split: string; paradigm: string },
  judgeScore: number | null,
): EvalRecord {
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
    ...where,
    success: proportion(summary),
    byTaskType: Object.fromEntries(
      Object.entries(summary.byTaskType).map(([type, s]) => [type, proportion(s)]),
    ),
    meanSteps: summary.meanSteps,
    formatErrorRate: summary.formatErrorRate,
    judgeScore,
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
