// DAPO's soft overlong punishment (Yu et al. 2025, eq. 13), by response length |y| in tokens:
//   0                                 if |y| <= L_max - L_cache
//   ((L_max - L_cache) - |y|) / L_cache  if L_max - L_cache < |y| <= L_max
//   -1                                if |y| > L_max
import { type Episode, type Generation, InvalidArgumentError, parseOrThrow } from '@pilotrl/core';
import { z } from 'zod';
import type { EpisodeRewardFn } from './reward-fn';

export const overlongOptionsSchema = z
  .object({
    /** L_max: the longest response, in tokens, before the full -1. */
    maxLength: z.number().int().positive(),
    /** L_cache: the length of the ramp before L_max where the penalty grows linearly. */
    cacheLength: z.number().int().positive(),
    /**
     * `generation`: each model response is one |y| and the episode gets the worst penalty of its
     * generations. `episode`: |y| is all model tokens of the episode together.
     */
    scope: z.enum(['generation', 'episode']).default('generation'),
  })
  .refine((options) => options.cacheLength <= options.maxLength, {
    message: 'cacheLength must be <= maxLength',
  });

/** The DAPO penalty for one length. */
export function overlongPenalty(length: number, maxLength: number, cacheLength: number): number {
  const free = maxLength - cacheLength;
  if (length <= free) return 0;
  if (length <= maxLength) return (free - length) / cacheLength;
  return -1;
}

/**
 * Component `overlong` (in [-1, 0]). Lengths are model tokens (loss-mask ones); a generation
 * stored without token ids is measured with `countTokens`, and is an error without it.
 */
export function createOverlongPenalty(
  options: z.input<typeof overlongOptionsSchema>,
  hooks: { countTokens?: (text: string) => number } = {},
): EpisodeRewardFn {
  const config = parseOrThrow(overlongOptionsSchema, options, 'overlong penalty options');
  const lengthOf = (episode: Episode, generation: Generation): number => {
    if (generation.tokenIds.length > 0) return generation.lossMask.reduce<number>((sum, bit) => sum + bit, 0);
    if (generation.text === '') return 0;
    if (hooks.countTokens === undefined) {
      throw new InvalidArgumentError(
        `Episode ${episode.id} has a generation without token ids; pass countTokens to createOverlongPenalty to measure its text`,
      );
    }
    return hooks.countTokens(generation.text);
  };
  const penalty = (length: number) => overlongPenalty(length, config.maxLength, config.cacheLength);
  return {
    name: 'overlong',
    compute(episode) {
      const lengths = episode.turns.flatMap((turn) =>
        turn.generations.map((generation) => lengthOf(episode, generation)),
      );
      if (config.scope === 'episode')
        return { overlong: penalty(lengths.reduce((sum, length) => sum + length, 0)) };
      return { overlong: lengths.reduce((worst, length) => Math.min(worst, penalty(length)), 0) };
    },
  };
}
