// The plain policy-gradient loss −A·π/π_old without clipping (Tinker's `importance_sampling`):
// on fresh samples it is REINFORCE, whose gradient is −A·∇log π. An optional KL penalty as in PPO.
import { type LossFn, parseOrThrow } from '@pilotrl/core';
import { z } from 'zod';
import { klEstimatorSchema, klPenalty, requireTokens } from './policy-loss';

export const importanceSamplingLossArgsSchema = z.strictObject({
  /** Weight of the KL penalty to the reference policy (needs `referenceLogprobs`); 0 disables. */
  klCoef: z.number().min(0).default(0),
  /** KL estimator: k1 or k3. */
  klEstimator: klEstimatorSchema.default('k3'),
});
export type ImportanceSamplingLossArgs = z.input<typeof importanceSamplingLossArgsSchema>;

export function importanceSamplingLoss(args: ImportanceSamplingLossArgs = {}): LossFn {
  const { klCoef, klEstimator } = parseOrThrow(
    importanceSamplingLossArgsSchema,
    args,
    'importance_sampling loss arguments',
  );
  return ({ datums, logprobs }) => {
    let policyLoss = 0;
    let klLoss = 0;
    let tokens = 0;
    let approxKl = 0;
    const gradLogprobs = datums.map((datum, d) => {
      const advantages = requireTokens(datum, 'advantages', d, 'importance_sampling loss');
      const oldLogprobs = requireTokens(datum, 'samplerLogprobs', d, 'importance_sampling loss');
      const referenceLogprobs =
        klCoef > 0 ? requireTokens(datum, 'referenceLogprobs', d, 'importance_sampling loss') : undefined;
      return datum.weights.map((weight, t) => {
        if (weight === 0) return 0;
        const logRatio = logprobs[d]![t]! - oldLogprobs[t]!;
        const ratio = Math.exp(logRatio);
        tokens++;
        approxKl += ratio - 1 - logRatio;
        policyLoss += weight * -advantages[t]! * ratio;
        let grad = weight * -advantages[t]! * ratio;
        if (referenceLogprobs !== undefined) {
          const kl = klPenalty(klEstimator, logprobs[d]![t]!, referenceLogprobs[t]!);
          klLoss += weight * kl.value;
          grad += weight * klCoef * kl.grad;
        }
        return grad;
      });
    });
    return {
      loss: policyLoss + klCoef * klLoss,
      gradLogprobs,
      metrics: {
        'losses/policy_loss': policyLoss,
        'losses/kl_loss': klLoss,
        'losses/approx_kl': tokens === 0 ? 0 : approxKl / tokens,
      },
    };
  };
}
