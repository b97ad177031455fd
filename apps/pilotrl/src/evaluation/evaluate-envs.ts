// Evaluation with the current weights: each split (of each env, in a mixture) played and summarised
// as eval records (plans judged where the agent writes them; the plan steps the env's checks pass
// recorded where an AdaPlan agent writes plans in its vocabulary; with `oraclePlan`, the split played
// again with the oracle's plans), and the one-line summary the trainer logs after it.
import {
  type Agent,
  createVectorEnv,
  type EvalReport,
  evaluate,
  type RolloutHooks,
  type TestTimeSearch,
} from '@pilotrl/agent';
import { canCheckSteps, type Episode, formatPercent, type Policy } from '@pilotrl/core';
import type { EnvCurriculum } from '../config/curriculum-config';
import { checkOraclePlans } from '../config/preflight';
import type { EnvProvider } from '../plugins/registry';
import { cpuMark, cpuSecondsSince } from '../run/cpu-time';
import type { RunEnv } from '../run/run-envs';
import { type EvalRecord, evalRecordOf, splitFigures } from '../run/run-records';
import { agentOptionsFor, createAgent } from '../run/run-setup';
import { createPlanJudging, type PlanJudging } from '../training/stage-rewards';
import { diagnosticsSummary } from './eval-diagnostics';

export interface EvalOptions {
  splits: readonly string[];
  episodes: number;
  temperature: number;
  seed: number;
  /** Test-time search of each env's evaluation (`pilotrl eval --search`); none by default. */
  search?: (env: { config: EnvCurriculum; provider: EnvProvider }) => TestTimeSearch;
  /**
   * Also play each split with the env oracle's plan given to an AdaPlan agent (`eval.oraclePlan`),
   * without search; its figures go in each record's `oraclePlan`.
   */
  oraclePlan?: boolean;
}

/** Plays each split with the current weights and summarises it as eval records. */
export async function evaluateSplits(
  env: RunEnv,
  policy: { sampler(): Policy } | Policy,
  options: EvalOptions,
  judging: PlanJudging | undefined,
  where: { step: number; phase: string; env?: string },
  hooks: RolloutHooks = {},
): Promise<{ records: EvalRecord[]; episodes: Episode[] }> {
  const { config, provider } = env;
  const sampler = 'sampler' in policy ? policy.sampler() : policy;
  const adaplan = config.agent.paradigm === 'adaplan';
  const agentFor = (oraclePlans: boolean) =>
    createAgent(
      config,
      sampler,
      agentOptionsFor(config, { provider, temperature: options.temperature, oraclePlans }),
    );
  const agent = agentFor(false);
  // A ReAct env of a mixture has no plan to be given.
  const oracleAgent = options.oraclePlan === true && adaplan ? agentFor(true) : undefined;
  // Plans in the env's plan-step vocabulary are steps its checks can follow; free text is not.
  const recordStepChecks = adaplan && config.agent.plan === 'steps' && (await offersStepChecks(env));
  const records: EvalRecord[] = [];
  const episodes: Episode[] = [];
  for (const split of options.splits) {
    const vectorEnv = createVectorEnv(env.createEnv, {
      size: Math.min(options.episodes, 32),
    });
    const play = (player: Agent, runId: string, search: TestTimeSearch | undefined, heard: RolloutHooks) =>
      evaluate(
        player,
        { taskSource: provider.tasks, vectorEnv },
        split,
        {
          limit: options.episodes,
          seed: options.seed,
          runId,
          ...(search === undefined ? {} : { search }),
          recordStepChecks,
        },
        heard,
      );
    const started = cpuMark();
    try {
      const report = await play(
        agent,
        `eval-${split}-${where.step}`,
        options.search?.({ config, provider }),
        hooks,
      );
      const judgeScore =
        judging !== undefined && adaplan ? await judging.judgePlans(report.episodeRecords) : null;
      // The oracle's episodes stay out of the caller's: they are not the policy's own play.
      const oracle =
        oracleAgent === undefined
          ? undefined
          : await play(
              oracleAgent,
              `eval-oracle-plan-${split}-${where.step}`,
              undefined,
              hooks.onTurnZeroEnds === undefined ? {} : { onTurnZeroEnds: hooks.onTurnZeroEnds },
            );
      records.push({
        ...evalRecordOf(report.episodeRecords, { ...where, split, paradigm: report.paradigm }, judgeScore),
        ...(oracle === undefined ? {} : { oraclePlan: oraclePlanFigures(oracle) }),
        cpuSeconds: cpuSecondsSince(started),
      });
      episodes.push(...report.episodeRecords);
    } finally {
      await vectorEnv.close();
    }
  }
  return { records, episodes };
}

/** Whether the env offers step checks, asked of one env made with the curriculum's options. */
async function offersStepChecks(env: RunEnv): Promise<boolean> {
  const probe = env.createEnv();
  try {
    return canCheckSteps(probe);
  } finally {
    await probe.close?.();
  }
}

/** The figures of a split played with the oracle's plans, as an eval record's `oraclePlan`. */
function oraclePlanFigures(report: EvalReport): NonNullable<EvalRecord['oraclePlan']> {
  const { success, meanSteps, formatErrorRate, diagnostics } = splitFigures(report.episodeRecords);
  return { success, meanSteps, formatErrorRate, diagnostics };
}

/**
 * Plays each split of every env: a single env's records as `evaluateSplits` gives them, a
 * mixture's with the env they belong to, env by env.
 */
export async function evaluateEnvs(
  envs: readonly (RunEnv & { judging?: PlanJudging })[],
  policy: { sampler(): Policy } | Policy,
  options: EvalOptions,
  where: { step: number; phase: string },
  hooks: RolloutHooks = {},
): Promise<{ records: EvalRecord[]; episodes: Episode[] }> {
  if (options.oraclePlan === true) checkOraclePlans(envs);
  const records: EvalRecord[] = [];
  const episodes: Episode[] = [];
  for (const env of envs) {
    const played = await evaluateSplits(
      env,
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

/**
 * Each split's success rate with its interval, as the trainer logs an evaluation, and in brackets
 * its plan-follow rate and revisions per episode where measured, and its success with the oracle's
 * plans where played.
 */
export function evalSummary(records: readonly EvalRecord[]): string {
  return records
    .map((r) => {
      const notes = [
        ...(r.diagnostics === undefined ? [] : diagnosticsSummary(r.diagnostics)),
        ...(r.oraclePlan === undefined ? [] : [`oracle plan ${formatPercent(r.oraclePlan.success.rate)}`]),
      ];
      return `${r.env === undefined ? '' : `${r.env} `}${r.split} ${formatPercent(r.success.rate)} [${formatPercent(r.success.low)}, ${formatPercent(r.success.high)}]${notes.length === 0 ? '' : ` (${notes.join(', ')})`}`;
    })
    .join('; ');
}
