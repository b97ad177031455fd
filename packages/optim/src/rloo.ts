// RLOO advantages (Ahmadian et al., 2024): each episode's reward minus the mean reward of the
// other episodes of its group, an unbiased leave-one-out baseline.
import { ConfigError, parseOrThrow } from '@pilotrl/core';
import { z } from 'zod';
import {
  type AdvantageEstimator,
  episodeAdvantagesToTokens,
  episodeRewards,
  groupIndices,
} from './advantage';

export const rlooArgsSchema = z.strictObject({});
export type RlooArgs = z.input<typeof rlooArgsSchema>;

export function rloo(args: RlooArgs = {}): AdvantageEstimator {
  parseOrThrow(rlooArgsSchema, args, 'rloo arguments');
  return {
    name: 'rloo',
    needsValues: false,
    estimate({ episodes }) {
      const rewards = episodeRewards(episodes);
      const perEpisode = new Array<number>(episodes.length).fill(0);
      for (const members of groupIndices(episodes)) {
        if (members.length < 2) {
          throw new ConfigError(
            `rloo needs at least 2 episodes per group; group "${episodes[members[0]!]!.groupId}" has 1. Sample a group size of 2 or more`,
          );
        }
        const total = members.reduce((sum, index) => sum + rewards[index]!, 0);
        for (const index of members) {
          const othersMean = (total - rewards[index]!) / (members.length - 1);
          perEpisode[index] = rewards[index]! - othersMean;
        }
      }
      return { advantages: episodeAdvantagesToTokens(episodes, perEpisode) };
    },
  };
}
