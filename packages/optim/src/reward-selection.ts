// Which of the policy's own episodes expert iteration imitates, and how much each weighs, decided by
// the stage's reward (`episode.reward`, composed from the stage's weighted components): whatever a
// stage rewards (winning, following its plan, a plan the judge scores well, no loops), expert
// iteration learns more of it, as a policy gradient on the same reward would.
//
// Episodes are compared within a set: the samples of one task (a group), or, where each task is
// played once, all episodes of the iteration. An episode is kept when its reward is above its set's
// mean, weighted (reward − mean) / (best − mean), so the best of each set weighs 1. A set whose
// rewards are all equal has nothing to prefer: its episodes of positive reward are kept at weight 1.
// With the outcome as the only reward this is classic expert iteration: every win is kept, at 1.
import { type Datum, type Episode, type Generation, InvalidArgumentError } from '@pilotrl/core';
import { episodeGenerations, episodeRewards, groupIndices } from './advantage';

export interface WeightedEpisode {
  episode: Episode;
  /** In (0, 1]: how much this episode's tokens weigh in the SFT loss. */
  weight: number;
}

export interface SelectOptions {
  /** Compare each episode with the other samples of its task, or with the whole batch. */
  within: 'groups' | 'batch';
}

/** The episodes worth imitating under their stage reward, each with its weight (see above). */
export function selectByReward(episodes: readonly Episode[], options: SelectOptions): WeightedEpisode[] {
  const rewards = episodeRewards(episodes);
  const sets = options.within === 'groups' ? groupIndices(episodes) : [episodes.map((_, index) => index)];
  const kept: { index: number; weight: number }[] = [];
  for (const set of sets) {
    const values = set.map((index) => rewards[index]!);
    const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
    const best = Math.max(...values);
    // Equal within rounding: the sums of a few weighted components differ by ~1e-16 at most.
    const spread = best - mean;
    for (const index of set) {
      const reward = rewards[index]!;
      if (spread <= 1e-9 * Math.max(1, Math.abs(best))) {
        if (reward > 0) kept.push({ index, weight: 1 });
      } else if (reward > mean) {
        kept.push({ index, weight: (reward - mean) / spread });
      }
    }
  }
  kept.sort((a, b) => a.index - b.index);
  return kept.map(({ index, weight }) => ({ episode: episodes[index]!, weight }));
}

/**
 * An episode's generations (of the `kinds` given, else all) as SFT datums in its own tokens (prompt
 * tokens weigh 0, the model's tokens `weight`), with the choice sets constrained decoding sampled
 * them among.
 */
export function episodeDatums(
  { episode, weight }: WeightedEpisode,
  kinds: readonly Generation['kind'][] = ['plan', 'act'],
): Datum[] {
  if (!(weight > 0 && Number.isFinite(weight))) {
    throw new InvalidArgumentError(
      `Episode "${episode.id}": a kept episode's weight must be positive, got ${weight}`,
    );
  }
  return episodeGenerations(episode)
    .filter((generation) => kinds.includes(generation.kind) && generation.lossMask.includes(1))
    .map((generation) => ({
      tokenIds: generation.tokenIds,
      weights: generation.lossMask.map((mask) => mask * weight),
      ...(generation.allowedTokenIds === undefined ? {} : { allowedTokenIds: generation.allowedTokenIds }),
    }));
}
