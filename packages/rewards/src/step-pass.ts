// Step-pass reward: pays for each plan step the env's checks found carried out, at the turn it was,
// so a policy is credited for progress along its plan and not only for the final outcome.
import { type Episode, InvalidArgumentError, parseOrThrow, type StepCheckRecord } from '@pilotrl/core';
import { z } from 'zod';
import type { EpisodeRewardFn } from './reward-fn';

export const stepPassOptionsSchema = z.object({
  /** Paid for each plan step whose check passes (once per step, at the turn it first passes). */
  amount: z.number().refine(Number.isFinite, 'must be finite').default(0.2),
});

function recordOf(episode: Episode): StepCheckRecord {
  if (episode.stepChecks === undefined) {
    throw new InvalidArgumentError(
      `Episode ${episode.id} has no step-check record; record it before the step_pass reward: play the episode with the rollout option recordStepChecks: true (@pilotrl/agent), or replay a finished one with recordStepChecks(env, episode)`,
    );
  }
  return episode.stepChecks;
}

/**
 * Component `step_pass` (per turn, credited to turns): `amount` × the plan steps whose check passed,
 * read from `episode.stepChecks` (recorded by the rollout's `recordStepChecks` option, or replayed by
 * `recordStepChecks`); each turn gets `amount` × the steps that passed at it.
 */
export function createStepPassReward(options: z.input<typeof stepPassOptionsSchema> = {}): EpisodeRewardFn {
  const { amount } = parseOrThrow(stepPassOptionsSchema, options, 'step_pass options');
  return {
    name: 'step_pass',
    creditsTurns: true,
    compute: (episode) => ({ step_pass: amount * recordOf(episode).passed.length }),
    computeTurns(episode) {
      const { passed } = recordOf(episode);
      return episode.turns.map((turn) => ({
        step_pass: amount * passed.filter((pass) => pass.turn === turn.index).length,
      }));
    },
  };
}
