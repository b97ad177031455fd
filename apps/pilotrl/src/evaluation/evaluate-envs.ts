// Evaluation with the current weights: each split (of each env, in a mixture) played and summarised
// as eval records (plans judged where the agent writes them), and the one-line summary the trainer
// logs after it.
import { createVectorEnv, evaluate, type RolloutHooks, type TestTimeSearch } from '@pilotrl/agent';
import { type Episode, formatPercent, type Policy } from '@pilotrl/core';
import type { EnvCurriculum } from '../config/curriculum-config';
import type { EnvProvider } from '../plugins/registry';
import { cpuMark, cpuSecondsSince } from '../run/cpu-time';
import { type EvalRecord, evalRecordOf } from '../run/run-records';
import { agentOptionsFor, createAgent, envOptionsFor } from '../run/run-setup';
import { createPlanJudging, type PlanJudging } from '../training/stage-rewards';

export interface EvalOptions {
  splits: readonly string[];
  episodes: number;
  temperature: number;
  seed: number;
  /** Test-time search of each env's evaluation (`pilotrl eval --search`); none by default. */
  search?: (env: { config: EnvCurriculum; provider: EnvProvider }) => TestTimeSearch;
}

/** Plays each split with the current weights and summarises it as eval records. */
export async function evaluateSplits(
  config: EnvCurriculum,
  provider: EnvProvider,
  policy: { sampler(): Policy } | Policy,
  options: EvalOptions,
  judging: PlanJudging | undefined,
  where: { step: number; phase: string; env?: string },
  hooks: RolloutHooks = {},
): Promise<{ records: EvalRecord[]; episodes: Episode[] }> {
  const sampler = 'sampler' in policy ? policy.sampler() : policy;
  const agent = createAgent(
    config,
    sampler,
    agentOptionsFor(config, { provider, temperature: options.temperature }),
  );
  const records: EvalRecord[] = [];
  const episodes: Episode[] = [];
  for (const split of options.splits) {
    const vectorEnv = createVectorEnv(() => provider.createEnv(envOptionsFor(config)), {
      size: Math.min(options.episodes, 32),
    });
    const started = cpuMark();
    try {
      const report = await evaluate(
        agent,
        { taskSource: provider.tasks, vectorEnv },
        split,
        {
          limit: options.episodes,
          seed: options.seed,
          runId: `eval-${split}-${where.step}`,
          ...(options.search === undefined ? {} : { search: options.search({ config, provider }) }),
        },
        hooks,
      );
      const judgeScore =
        judging !== undefined && config.agent.paradigm === 'adaplan'
          ? await judging.judgePlans(report.episodeRecords)
          : null;
      records.push({
        ...evalRecordOf(report.episodeRecords, { ...where, split, paradigm: report.paradigm }, judgeScore),
        cpuSeconds: cpuSecondsSince(started),
      });
      episodes.push(...report.episodeRecords);
    } finally {
      await vectorEnv.close();
    }
  }
  return { records, episodes };
}

/**
 * Plays each split of every env: a single env's records as `evaluateSplits` gives them, a
 * mixture's with the env they belong to, env by env.
 */
export async function evaluateEnvs(
  envs: readonly { id: string; config: EnvCurriculum; provider: EnvProvider; judging?: PlanJudging }[],
  policy: { sampler(): Policy } | Policy,
  options: EvalOptions,
  where: { step: number; phase: string },
  hooks: RolloutHooks = {},
): Promise<{ records: EvalRecord[]; episodes: Episode[] }> {
  const records: EvalRecord[] = [];
  const episodes: Episode[] = [];
  for (const env of envs) {
    const played = await evaluateSplits(
      env.config,
      env.provider,
      policy,
      options,
      env.judging,
      envs.length > 1 ? { ...where, env: env.id } : where,
      hooks,
    );
    records.push(...played.records);
    episodes.push(...played.episodes);
  }
  return { records, episodes };
}

/** The judge of a curriculum's evaluations: the plan stage's judge when there is one. */
export function curriculumJudging(config: EnvCurriculum, provider: EnvProvider): PlanJudging {
  const planStage = config.stages.find((s) => s.kind === 'plan');
  return createPlanJudging(config, provider, planStage?.kind === 'plan' ? planStage.judge : 'reference');
}

/** Each split's success rate with its interval, as the trainer logs an evaluation. */
export function evalSummary(records: readonly EvalRecord[]): string {
  return records
    .map(
      (r) =>
        `${r.env === undefined ? '' : `${r.env} `}${r.split} ${formatPercent(r.success.rate)} [${formatPercent(r.success.low)}, ${formatPercent(r.success.high)}]`,
    )
    .join(', ');
}
