// The one SFT update of the project: token-mean cross-entropy on a batch of datums, then one AdamW
// step with one set of settings, `SFT_ADAM`. It needs only core's TrainablePolicy, so it trains the
// in-process tfjs model and a remote trainer alike; `trainSft`, expert iteration, the app's warm
// start and the experiments all call it.
import { type AdamParams, type Datum, InvalidArgumentError, type TrainablePolicy } from '@pilotrl/core';

/** The AdamW settings of every SFT step unless overridden: GPT-style beta2, decay and clipping. */
export const SFT_ADAM = { beta2: 0.95, weightDecay: 0.01, gradClipNorm: 1 } as const;

export interface SftStepResult {
  /** Token-mean cross-entropy of the batch before the update. */
  loss: number;
  gradNorm: number;
  /** Tokens trained on (non-zero weights) and tokens read (whole sequences). */
  trainedTokens: number;
  tokens: number;
}

/**
 * One SFT update on `batch`: the weights are rescaled to sum to 1 (token-mean cross-entropy; datums
 * whose weights already sum to 1 over the batch are unchanged), then one AdamW step with `SFT_ADAM`
 * and any of `adam` on top. Works with any TrainablePolicy.
 */
export async function sftStep(
  policy: TrainablePolicy,
  batch: readonly Datum[],
  adam: AdamParams,
): Promise<SftStepResult> {
  const total = batch.reduce((sum, d) => sum + d.weights.reduce((s, w) => s + w, 0), 0);
  if (!(total > 0)) {
    throw new InvalidArgumentError(
      `sftStep: the batch of ${batch.length} datums has no trained token (all weights 0)`,
    );
  }
  const scaled = batch.map((d) => ({ ...d, weights: d.weights.map((w) => w / total) }));
  const { loss } = await policy.forwardBackward(scaled, 'cross_entropy');
  const { gradNorm } = await policy.optimStep({ ...SFT_ADAM, ...adam });
  return {
    loss,
    gradNorm,
    trainedTokens: batch.reduce((n, d) => n + d.weights.filter((w) => w !== 0).length, 0),
    tokens: batch.reduce((n, d) => n + d.tokenIds.length, 0),
  };
}
