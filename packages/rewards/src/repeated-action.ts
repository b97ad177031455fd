// Repeated-action penalty: discourages loops such as issuing the same command again and again.
import { type Episode, parseOrThrow } from '@pilotrl/core';
import { z } from 'zod';
import { type EpisodeRewardFn, penaltyFor, penaltyOptionsSchema } from './reward-fn';

export const repeatedActionOptionsSchema = penaltyOptionsSchema.extend({
  /** A turn repeats when its action equals one of the previous `window` actions (1: the last one). */
  window: z.number().int().positive().default(1),
  /** Actions never counted as repeats (compared after normalising), e.g. `look`. */
  ignore: z.array(z.string()).default([]),
});

const normalise = (action: string) => action.trim().replace(/\s+/g, ' ').toLowerCase();

/**
 * Component `repeated_action` (≤ 0). Actions are compared after trimming, lower-casing and
 * collapsing spaces; turns without an action neither repeat nor break a repeat.
 */
export function createRepeatedActionPenalty(
  options: z.input<typeof repeatedActionOptionsSchema> = {},
): EpisodeRewardFn {
  const config = parseOrThrow(repeatedActionOptionsSchema, options, 'repeated-action penalty options');
  const ignored = new Set(config.ignore.map(normalise));
  const repeats = (episode: Episode): boolean[] => {
    const recent: string[] = [];
    return episode.turns.map((turn) => {
      if (turn.action === null) return false;
      const action = normalise(turn.action);
      const repeated = !ignored.has(action) && recent.includes(action);
      recent.push(action);
      if (recent.length > config.window) recent.shift();
      return repeated;
    });
  };
  return {
    name: 'repeated_action',
    compute: (episode) => ({
      repeated_action: penaltyFor(config, repeats(episode).filter(Boolean).length, episode.turns.length),
    }),
    computeTurns: (episode) =>
      repeats(episode).map((repeated) => ({ repeated_action: repeated ? -config.penalty : 0 })),
  };
}
