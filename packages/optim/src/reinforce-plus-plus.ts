// REINFORCE++ advantages (Hu, 2025): the episode reward, optionally minus its group mean
// ("REINFORCE++-baseline"), then whitened over every model token of the whole batch, so the
// normalisation does not depend on how episodes were grouped.
import { mean, parseOrThrow } from '@pilotrl/core';
import { z } from 'zod';
import {
  type AdvantageEstimator,
  episodeAdvantagesToTokens,
  episodeRewards,
  groupIndices,
  whitenModelTokens,
} from './advantage';

export const reinforcePlusPlusArgsSchema = z.strictObject({
  /** Subtract the group mean before batch whitening (REINFORCE++-baseline). */
  groupBaseline: z.boolean().default(false),
  /** Added to the batch standard deviation. */
  eps: z.number().positive().default(1e-8),
});
export type ReinforcePlusPlusArgs = z.input<typeof reinforcePlusPlusArgsSchema>;

export function reinforcePlusPlus(args: ReinforcePlusPlusArgs = {}): AdvantageEstimator {
  const { groupBaseline, eps } = parseOrThrow(reinforcePlusPlusArgsSchema, args, 'reinforce++ arguments');
  return {
    name: 'reinforce++',
    needsValues: false,
    estimate({ episodes }) {
      const returns = episodeRewards(episodes);
      if (groupBaseline) {
        for (const members of groupIndices(episodes)) {
          const center = mean(members.map((index) => returns[index]!));
          for (const index of members) returns[index] = returns[index]! - center;
        }
      }
      // Each episode counts once per model token it generated.
      return { advantages: whitenModelTokens(episodes, episodeAdvantagesToTokens(episodes, returns), eps) };
    },
  };
}
