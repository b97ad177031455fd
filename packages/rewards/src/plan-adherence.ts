// Plan adherence (PilotRL stage 1): did the executed actions carry out the steps of the plan the
// agent was given? The matching of actions to steps is documented in plan-matching.ts.
import { type Episode, InvalidArgumentError, mean, parseOrThrow } from '@pilotrl/core';
import { z } from 'zod';
import { alignActionsToPlan } from './plan-matching';
import { type EpisodeRewardFn, executedActions } from './reward-fn';

export const planAdherenceOptionsSchema = z.object({
  /**
   * Which plan of `episode.planHistory` is followed: `first` (in stage 1, the plan given from
   * outside) or `last` (the plan in force at the end, whose leading steps are the executed ones).
   */
  plan: z.enum(['first', 'last']).default('first'),
});

/**
 * Component `plan_adherence` in [0, 1]: the mean over plan steps of the share of each step's
 * clauses that an executed action carried out, aligned in order. Actions the env refused and turns
 * without an action do not count. An episode without a plan is an error.
 */
export function createPlanAdherenceReward(
  options: z.input<typeof planAdherenceOptionsSchema> = {},
): EpisodeRewardFn {
  const config = parseOrThrow(planAdherenceOptionsSchema, options, 'plan adherence options');
  return {
    name: 'plan_adherence',
    compute(episode: Episode) {
      const revision = config.plan === 'first' ? episode.planHistory[0] : episode.planHistory.at(-1);
      if (revision === undefined || revision.steps.length === 0) {
        throw new InvalidArgumentError(
          `Episode ${episode.id} has no plan in planHistory; plan adherence needs one (give the agent a plan, as in stage 1)`,
        );
      }
      const { stepCoverage } = alignActionsToPlan(revision.steps, executedActions(episode));
      return { plan_adherence: mean(stepCoverage) };
    },
  };
}
