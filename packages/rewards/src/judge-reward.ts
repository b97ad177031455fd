// Plan-quality reward (PilotRL stage 2): a judge scores the plan the policy wrote, and the three
// rubric scores become reward components.
import {
  type Episode,
  InvalidArgumentError,
  type Judge,
  type JudgeInput,
  type JudgeResult,
  mean,
  parseOrThrow,
} from '@pilotrl/core';
import { z } from 'zod';
import type { EpisodeRewardFn } from './reward-fn';

export const judgeRewardOptionsSchema = z.object({
  /**
   * Which plan to judge: the first one the policy wrote, the last one in force, or (`per-step`,
   * PilotRL's stage 2) the plan in force at every step: each rubric is averaged over the steps
   * that had a policy-written plan in force.
   */
  plan: z.enum(['first', 'last', 'per-step']).default('first'),
  /**
   * An episode with no plan written by the policy (e.g. its plan did not parse): `'error'` throws;
   * `{ score }` gives `plan_quality` = score and no judge components or verdict. A score of 0, the
   * lowest a judged plan gets, keeps a malformed plan from scoring better than a poor one.
   */
  missingPlan: z
    .union([z.literal('error'), z.object({ score: z.number().finite() }).strict()])
    .default('error'),
});

export interface JudgeRewardHooks {
  judge: Judge;
  /** The oracle's reference for an episode's task, when there is one. */
  reference?: (episode: Episode) => Promise<JudgeInput['reference']> | JudgeInput['reference'];
}

/**
 * Components `judge_correctness`, `judge_followability`, `judge_standardization` (1-5 each) and
 * `plan_quality` = (mean - 1) / 4, in [0, 1]. The verdict is kept for `episode.judge`.
 */
export function createJudgeReward(
  hooks: JudgeRewardHooks,
  options: z.input<typeof judgeRewardOptionsSchema> = {},
): EpisodeRewardFn {
  const config = parseOrThrow(judgeRewardOptionsSchema, options, 'judge reward options');
  const verdicts = new WeakMap<Episode, JudgeResult>();
  return {
    name: 'plan_quality',
    async compute(episode): Promise<Record<string, number>> {
      const written = episode.planHistory.filter((revision) => revision.source === 'policy');
      const judged =
        config.plan === 'per-step' ? written : [config.plan === 'first' ? written[0] : written.at(-1)];
      const revisions = judged.filter((revision) => revision !== undefined);
      if (revisions.length === 0) {
        if (config.missingPlan !== 'error') return { plan_quality: config.missingPlan.score };
        throw new InvalidArgumentError(
          `Episode ${episode.id} has no plan written by the policy to judge (planHistory source "policy"); pass { missingPlan: { score } } to score such episodes`,
        );
      }
      const reference = hooks.reference ? await hooks.reference(episode) : undefined;
      const results = await hooks.judge.judge(
        revisions.map((revision) => ({
          task: episode.task,
          plan: revision.steps,
          // The plan is judged against what the agent had seen when it was written.
          observation: episode.turns[revision.turn]?.observation ?? episode.initialObservation,
          envId: episode.envId,
          ...(reference === undefined ? {} : { reference }),
        })),
      );
      verdicts.set(episode, results[0]!);
      const rubric = (verdict: JudgeResult) => [
        verdict.correctness.score,
        verdict.followability.score,
        verdict.standardization.score,
      ];
      let scores = rubric(results[0]!);
      if (config.plan === 'per-step') {
        // Each step counts the verdict of the plan in force before it; a plan replaced before any
        // step counts for none.
        const perStep = episode.turns.flatMap((turn) => {
          const inForce = episode.planHistory.filter((revision) => revision.turn <= turn.index).at(-1);
          const at = inForce === undefined ? -1 : revisions.indexOf(inForce);
          return at < 0 ? [] : [rubric(results[at]!)];
        });
        if (perStep.length > 0) {
          scores = [0, 1, 2].map((k) => mean(perStep.map((step) => step[k]!)));
        }
      }
      return {
        judge_correctness: scores[0]!,
        judge_followability: scores[1]!,
        judge_standardization: scores[2]!,
        plan_quality: (mean(scores) - 1) / 4,
      };
    },
    judgeResult: (episode) => verdicts.get(episode),
  };
}
