// GRPO advantages (Shao et al., 2024): each episode's reward relative to its group's mean,
// optionally divided by the group's standard deviation. Every model token of the episode gets it.
import { mean, parseOrThrow, sampleStd } from '@pilotrl/core';
import { z } from 'zod';
import {
  type AdvantageEstimator,
  episodeAdvantagesToTokens,
  episodeRewards,
  groupIndices,
} from './advantage';

export const grpoArgsSchema = z.strictObject({
  /** Divide by the group's sample standard deviation (Dr. GRPO turns this off). */
  normalizeStd: z.boolean().default(true),
  /** Added to the standard deviation so that near-constant groups do not explode. */
  eps: z.number().positive().default(1e-6),
});
export type GrpoArgs = z.input<typeof grpoArgsSchema>;

export function grpo(args: GrpoArgs = {}): AdvantageEstimator {
  const { normalizeStd, eps } = parseOrThrow(grpoArgsSchema, args, 'grpo arguments');
  return {
    name: 'grpo',
    needsValues: false,
    estimate({ episodes }) {
      const rewards = episodeRewards(episodes);
      const perEpisode = new Array<number>(episodes.length).fill(0);
      for (const members of groupIndices(episodes)) {
        const groupRewards = members.map((index) => rewards[index]!);
        const center = mean(groupRewards);
        const scale = normalizeStd ? sampleStd(groupRewards) + eps : 1;
        for (const index of members) perEpisode[index] = (rewards[index]! - center) / scale;
      }
      return { advantages: episodeAdvantagesToTokens(episodes, perEpisode) };
    },
  };
}
