// How much of the variance of the value targets the value head accounts for, over the model
// tokens of a batch: 1 - Var(returns - values) / Var(returns). 1 is a perfect critic, 0 one that
// predicts no better than the mean return, and negative values a critic that is worse than that.
import type { Episode } from '@pilotrl/core';
import { episodeGenerations, type TokenTable } from './advantage';

/**
 * Explained variance of `values` against `returns` over the model tokens (loss mask 1) of
 * `episodes`; NaN when the returns do not vary (nothing to explain) or there are no model tokens.
 */
export function explainedVariance(
  episodes: readonly Episode[],
  values: TokenTable,
  returns: TokenTable,
): number {
  const targets: number[] = [];
  const errors: number[] = [];
  episodes.forEach((episode, e) => {
    episodeGenerations(episode).forEach((generation, g) => {
      generation.lossMask.forEach((mask, t) => {
        if (mask !== 1) return;
        const target = returns[e]![g]![t]!;
        targets.push(target);
        errors.push(target - values[e]![g]![t]!);
      });
    });
  });
  const targetVariance = variance(targets);
  if (!(targetVariance > 0)) return Number.NaN;
  return 1 - variance(errors) / targetVariance;
}

function variance(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const center = values.reduce((sum, value) => sum + value, 0) / values.length;
  return values.reduce((sum, value) => sum + (value - center) ** 2, 0) / values.length;
}
