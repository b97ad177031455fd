// Evaluation: play a split and report the success rate with a 95% Wilson interval, mean steps,
// the format-error rate, success per task type, and the compute spent (test-time search included).
import {
  ConfigError,
  type Episode,
  type Interval,
  mean,
  parseOrThrow,
  type TaskSource,
  type VectorEnv,
  wilsonInterval,
} from '@pilotrl/core';
import { z } from 'zod';
import type { Agent } from './agent';
import { type RolloutHooks, rollout } from './rollout';
import { type SearchCompute, totalCompute } from './search-compute';
import type { TestTimeSearch } from './test-time-search';

export interface SuccessSummary {
  episodes: number;
  successes: number;
  successRate: number;
  ci95: Interval;
}

export interface EvalReport extends SuccessSummary {
  envId: string;
  split: string;
  paradigm: string;
  /** Turns per episode, averaged over all episodes. */
  meanSteps: number;
  /** Turns per won episode, averaged; null when none was won. */
  meanStepsWon: number | null;
  /** Share of turns whose model output could not be parsed. */
  formatErrorRate: number;
  /** Share of episodes with at least one format error. */
  episodesWithFormatErrors: number;
  byTaskType: Record<string, SuccessSummary>;
  /** Compute of all episodes together: generated and scored tokens, env steps, copies, backtracks. */
  compute: SearchCompute;
  episodeRecords: Episode[];
}

export const evaluateOptionsSchema = z.object({
  /** First task of the split to play. */
  offset: z.number().int().nonnegative().default(0),
  /** How many tasks; required for unbounded splits, else the whole split from `offset`. */
  limit: z.number().int().positive().optional(),
  /** Episodes per task. */
  samplesPerTask: z.number().int().positive().default(1),
  seed: z.number().int().nonnegative().default(0),
  runId: z.string().min(1).default('eval'),
  /** Test-time search: best-of-N plans or look-ahead over env copies (see `TestTimeSearch`). */
  search: z.custom<TestTimeSearch>((value) => typeof value === 'object' && value !== null).optional(),
  /**
   * Record each episode's `stepChecks` (the rollout option of that name): which plan steps the
   * env's checks saw carried out, and at which turn. Needs envs that offer step checks.
   */
  recordStepChecks: z.boolean().default(false),
});
export type EvaluateOptions = z.input<typeof evaluateOptionsSchema>;

function summarise(episodes: readonly Episode[]): SuccessSummary {
  const successes = episodes.filter((episode) => episode.won).length;
  const { rate, low, high } = wilsonInterval(successes, episodes.length);
  return { episodes: episodes.length, successes, successRate: rate, ci95: { low, high } };
}

/** Summarises finished episodes (e.g. read back from a JSONL file). */
export function summariseEpisodes(
  episodes: readonly Episode[],
): Omit<EvalReport, 'envId' | 'split' | 'paradigm' | 'episodeRecords' | 'compute'> {
  const turns = episodes.reduce((sum, episode) => sum + episode.turns.length, 0);
  const formatErrors = episodes.reduce(
    (sum, episode) => sum + episode.turns.filter((turn) => turn.formatError !== null).length,
    0,
  );
  const won = episodes.filter((episode) => episode.won);
  const byType = new Map<string, Episode[]>();
  for (const episode of episodes) {
    const type = episode.taskType ?? 'unknown';
    byType.set(type, [...(byType.get(type) ?? []), episode]);
  }
  return {
    ...summarise(episodes),
    meanSteps: episodes.length === 0 ? 0 : turns / episodes.length,
    meanStepsWon: won.length === 0 ? null : mean(won.map((episode) => episode.turns.length)),
    formatErrorRate: turns === 0 ? 0 : formatErrors / turns,
    episodesWithFormatErrors:
      episodes.length === 0
        ? 0
        : episodes.filter((episode) => episode.turns.some((turn) => turn.formatError !== null)).length /
          episodes.length,
    byTaskType: Object.fromEntries(
      [...byType.entries()].sort().map(([type, group]) => [type, summarise(group)]),
    ),
  };
}

/** Plays `split` of `env.taskSource` with `agent` on `env.vectorEnv` and reports how it went. */
export async function evaluate(
  agent: Agent,
  env: { taskSource: TaskSource; vectorEnv: VectorEnv },
  split: string,
  options: EvaluateOptions = {},
  hooks: RolloutHooks = {},
): Promise<EvalReport> {
  const config = parseOrThrow(evaluateOptionsSchema, options, 'evaluate options');
  const { taskSource, vectorEnv } = env;
  if (!taskSource.splits().includes(split)) {
    throw new ConfigError(
      `env "${taskSource.envId}" has no split "${split}"; its splits are ${taskSource.splits().join(', ')}`,
    );
  }
  if (config.limit === undefined && taskSource.count(split) === 'unbounded') {
    throw new ConfigError(`split "${split}" of env "${taskSource.envId}" is unbounded; pass a limit`);
  }
  const tasks = await taskSource.tasks(split, {
    offset: config.offset,
    ...(config.limit === undefined ? {} : { limit: config.limit }),
  });
  if (tasks.length === 0) {
    throw new ConfigError(
      `split "${split}" of env "${taskSource.envId}" has no tasks from offset ${config.offset}`,
    );
  }
  const episodes = await rollout(
    agent,
    vectorEnv,
    {
      envId: taskSource.envId,
      tasks,
      groupSize: config.samplesPerTask,
      runId: config.runId,
      seed: config.seed,
      ...(config.search === undefined ? {} : { search: config.search }),
      recordStepChecks: config.recordStepChecks,
    },
    hooks,
  );
  return {
    envId: taskSource.envId,
    split,
    paradigm: agent.paradigm,
    ...summariseEpisodes(episodes),
    compute: totalCompute(episodes),
    episodeRecords: episodes,
  };
}
