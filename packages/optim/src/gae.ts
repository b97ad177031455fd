// Generalised advantage estimation (Schulman et al., 2016) for PPO with a value head. The model
// tokens of an episode, across all its generations, form one trajectory: environment and prompt
// tokens are skipped (they are not actions). Each turn's reward arrives at the last model token of
// that turn (or of the latest turn before it that has one); a turn's reward is its own share where
// the episode credits rewards per turn, else the whole episode reward arrives with the final turn.
// The successor value of the last model token is 0.
import { InvalidArgumentError, parseOrThrow } from '@pilotrl/core';
import { z } from 'zod';
import {
  type AdvantageEstimator,
  episodeGenerations,
  type TokenTable,
  turnRewardTable,
  whitenModelTokens,
} from './advantage';

export const gaeArgsSchema = z.strictObject({
  /** Discount per model token. */
  gamma: z.number().min(0).max(1).default(1),
  /** GAE λ: 1 gives Monte-Carlo returns minus values, 0 gives one-step TD errors. */
  lambda: z.number().min(0).max(1).default(1),
  /** Whiten the advantages over every model token of the batch (returns stay unwhitened). */
  whiten: z.boolean().default(true),
  /** Added to the standard deviation when whitening. */
  eps: z.number().positive().default(1e-8),
});
export type GaeArgs = z.input<typeof gaeArgsSchema>;

export function gae(args: GaeArgs = {}): AdvantageEstimator {
  const { gamma, lambda, whiten, eps } = parseOrThrow(gaeArgsSchema, args, 'gae arguments');
  return {
    name: 'gae',
    needsValues: true,
    estimate({ episodes, values }) {
      if (values === undefined) {
        throw new InvalidArgumentError(
          'gae needs per-token values: use a trainable policy with a value head',
        );
      }
      const rewards = turnRewardTable(episodes);
      const advantages: TokenTable = [];
      const returns: TokenTable = [];
      episodes.forEach((episode, e) => {
        const generations = episodeGenerations(episode);
        const episodeAdvantages = generations.map((g) => new Array<number>(g.tokenIds.length).fill(0));
        const episodeReturns = generations.map((g) => new Array<number>(g.tokenIds.length).fill(0));
        // The turn each generation belongs to, so rewards arrive turn by turn.
        const turnOf = episode.turns.flatMap((turn, t) => turn.generations.map(() => t));
        // Walk the model tokens backwards: running = A_k, nextValue = V_{k+1}; `pending` is the
        // reward of the turns walked so far that no model token has received yet.
        let running = 0;
        let nextValue = 0;
        let pending = 0;
        let turn = episode.turns.length;
        for (let g = generations.length - 1; g >= 0; g--) {
          for (; turn > turnOf[g]!; turn--) pending += rewards[e]![turn - 1]!;
          const mask = generations[g]!.lossMask;
          for (let t = mask.length - 1; t >= 0; t--) {
            if (mask[t] !== 1) continue;
            const value = values[e]?.[g]?.[t];
            if (value === undefined) {
              throw new InvalidArgumentError(`gae: values[${e}][${g}][${t}] is missing`);
            }
            const delta = pending + gamma * nextValue - value;
            running = delta + gamma * lambda * running;
            episodeAdvantages[g]![t] = running;
            episodeReturns[g]![t] = running + value;
            nextValue = value;
            pending = 0;
          }
        }
        advantages.push(episodeAdvantages);
        returns.push(episodeReturns);
      });
      return { advantages: whiten ? whitenModelTokens(episodes, advantages, eps) : advantages, returns };
    },
  };
}
