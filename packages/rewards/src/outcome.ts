// Outcome reward: did the episode accomplish the task (`won`)?
import { type Episode, parseOrThrow } from '@pilotrl/core';
import { z } from 'zod';
import type { EpisodeRewardFn } from './reward-fn';

export const outcomeOptionsSchema = z.object({
  /** Value when won. */
  success: z.number().default(1),
  /** Value when not won (lost, truncated or failed). */
  failure: z.number().default(0),
});

/** Component `outcome`: `success` when the episode was won, else `failure`. */
export function createOutcomeReward(options: z.input<typeof outcomeOptionsSchema> = {}): EpisodeRewardFn {
  const config = parseOrThrow(outcomeOptionsSchema, options, 'outcome reward options');
  return {
    name: 'outcome',
    compute: (episode: Episode) => ({ outcome: episode.won ? config.success : config.failure }),
  };
}
