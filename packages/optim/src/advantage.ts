// The advantage-estimator contract and the helpers estimators share: episodes in, one advantage
// per generated token out.
import {
  type AdvantageEstimator,
  type AdvantageInput,
  type AdvantageResult,
  type Episode,
  type Generation,
  InvalidArgumentError,
  mean,
  type TokenTable,
  turnRewards,
} from '@pilotrl/core';

export type { AdvantageEstimator, AdvantageInput, AdvantageResult, TokenTable };

/** Generations of an episode in the order they were produced (turn by turn). */
export function episodeGenerations(episode: Episode): Generation[] {
  return episode.turns.flatMap((turn) => turn.generations);
}

/** The scalar reward of each episode; a missing reward is an error, never a silent zero. */
export function episodeRewards(episodes: readonly Episode[]): number[] {
  return episodes.map((episode) => {
    if (episode.reward === undefined || !Number.isFinite(episode.reward)) {
      throw new InvalidArgumentError(
        `Episode "${episode.id}" has no finite reward; apply the reward functions before estimating advantages`,
      );
    }
    return episode.reward;
  });
}

/**
 * The reward each turn of each episode receives (`[episode][turn]`): the turns' own shares where the
 * reward is credited per turn (`turn.reward`, e.g. a plan step passed there), else the whole episode
 * reward at the final turn. Either way a row sums to the episode's reward.
 */
export function turnRewardTable(episodes: readonly Episode[]): number[][] {
  const totals = episodeRewards(episodes);
  return episodes.map(
    (episode, e) =>
      turnRewards(episode) ?? episode.turns.map((_, t) => (t === episode.turns.length - 1 ? totals[e]! : 0)),
  );
}

/** Indices of the episodes in each group, groups in order of first appearance. */
export function groupIndices(episodes: readonly Episode[]): number[][] {
  const groups = new Map<string, number[]>();
  episodes.forEach((episode, index) => {
    const members = groups.get(episode.groupId);
    if (members === undefined) groups.set(episode.groupId, [index]);
    else members.push(index);
  });
  return [...groups.values()];
}

/** Puts one advantage on every model token of the given generations, 0 on the rest. */
export function broadcastToTokens(generations: readonly Generation[], advantage: number): number[][] {
  return generations.map((generation) => generation.lossMask.map((mask) => (mask === 1 ? advantage : 0)));
}

/** Broadcasts one scalar advantage per episode over its model tokens. */
export function episodeAdvantagesToTokens(
  episodes: readonly Episode[],
  perEpisode: readonly number[],
): TokenTable {
  return episodes.map((episode, index) => broadcastToTokens(episodeGenerations(episode), perEpisode[index]!));
}

/**
 * Whitens a token table over the model tokens of the whole batch (population statistics);
 * environment tokens neither count nor receive a value.
 */
export function whitenModelTokens(episodes: readonly Episode[], table: TokenTable, eps: number): TokenTable {
  const masks = episodes.map((episode) => episodeGenerations(episode).map((g) => g.lossMask));
  const modelValues: number[] = [];
  masks.forEach((episodeMasks, e) => {
    episodeMasks.forEach((mask, g) => {
      mask.forEach((m, t) => {
        if (m === 1) modelValues.push(table[e]![g]![t]!);
      });
    });
  });
  if (modelValues.length === 0) return table;
  const center = mean(modelValues);
  const std = Math.sqrt(mean(modelValues.map((value) => (value - center) ** 2)));
  return table.map((rows, e) =>
    rows.map((row, g) =>
      row.map((value, t) => (masks[e]![g]![t] === 1 ? (value - center) / (std + eps) : 0)),
    ),
  );
}
