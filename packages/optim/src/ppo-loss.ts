// The PPO clipped surrogate (Schulman et al., 2017) with separate low and high clip ratios
// (clip-higher, DAPO), the dual clip of Ye et al. (2020) for negative advantages, and an optional
// KL penalty to a reference policy. Old logprobs come from `samplerLogprobs`.
import { type LossFn, parseOrThrow } from '@pilotrl/core';
import { z } from 'zod';
import { klEstimatorSchema, klPenalty, requireTokens } from './policy-loss';

export const ppoLossArgsSchema = z.strictObject({
  /** Lower clip ratio ε_low: the ratio is clipped below at 1 − ε_low. */
  clipLow: z.number().positive().lt(1).default(0.2),
  /** Upper clip ratio ε_high: the ratio is clipped above at 1 + ε_high (0.28 for clip-higher). */
  clipHigh: z.number().positive().default(0.2),
  /** Dual-clip constant c > 1: for negative advantages the loss is capped at −c·A; null disables. */
  dualClip: z.number().gt(1).nullable().default(null),
  /** Weight of the KL penalty to the reference policy (needs `referenceLogprobs`); 0 disables. */
  klCoef: z.number().min(0).default(0),
  /** KL estimator: k1 (log ratio) or k3 (non-negative, lower variance). */
  klEstimator: klEstimatorSchema.default('k3'),
});
export type PpoLossArgs = z.input<typeof ppoLossArgsSchema>;

export function ppoLoss(args: PpoLossArgs = {}): LossFn {
  const { clipLow, clipHigh, dualClip, klCoef, klEstimator } = parseOrThrow(
    ppoLossArgsSchema,
    args,
    'ppo loss arguments',
  );
  return ({ datums, logprobs }) => {
    let policyLoss = 0;
    let klLoss = 0;
    let tokens = 0;
    let clipped = 0;
    let dualClipped = 0;
    let approxKl = 0;
    const gradLogprobs = datums.map((datum, d) => {
      const advantages = requireTokens(datum, 'advantages', d, 'ppo loss');
      const oldLogprobs = requireTokens(datum, 'samplerLogprobs', d, 'ppo loss');
      const referenceLogprobs =
        klCoef > 0 ? requireTokens(datum, 'referenceLogprobs', d, 'ppo loss') : undefined;
      return datum.weights.map((weight, t) => {
        if (weight === 0) return 0;
        const advantage = advantages[t]!;
        const logRatio = logprobs[d]![t]! - oldLogprobs[t]!;
        const ratio = Math.exp(logRatio);
        const clippedRatio = Math.min(Math.max(ratio, 1 - clipLow), 1 + clipHigh);
        // Pessimistic bound: the larger of the unclipped and clipped losses; when the clipped one
        // is larger the ratio is outside the trust region and the token has no gradient.
        const unclippedLoss = -advantage * ratio;
        const clippedLoss = -advantage * clippedRatio;
        let tokenLoss = Math.max(unclippedLoss, clippedLoss);
        let dLossDRatio = clippedLoss > unclippedLoss ? 0 : -advantage;
        if (clippedLoss > unclippedLoss) clipped++;
        if (dualClip !== null && advantage < 0 && tokenLoss > -dualClip * advantage) {
          tokenLoss = -dualClip * advantage;
          dLossDRatio = 0;
          dualClipped++;
        }
        tokens++;
        approxKl += ratio - 1 - logRatio;
        policyLoss += weight * tokenLoss;
        let grad = weight * dLossDRatio * ratio;
        if (referenceLogprobs !== undefined) {
          const kl = klPenalty(klEstimator, logprobs[d]![t]!, referenceLogprobs[t]!);
          klLoss += weight * kl.value;
          grad += weight * klCoef * kl.grad;
        }
        return grad;
      });
    });
    const perToken = (value: number) => (tokens === 0 ? 0 : value / tokens);
    return {
      loss: policyLoss + klCoef * klLoss,
      gradLogprobs,
      metrics: {
        'losses/policy_loss': policyLoss,
        'losses/kl_loss': klLoss,
        'losses/approx_kl': perToken(approxKl),
        'losses/clipfrac': perToken(clipped),
        'losses/dual_clipfrac': perToken(dualClipped),
      },
    };
  };
}
