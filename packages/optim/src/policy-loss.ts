// What every policy loss here shares. A loss is a core `LossFn`: plain JS
// over per-token logprobs that returns the loss and d loss / d logprobs, summed over tokens with
// each datum's `weights` (the update step scales the weights for token- or sequence-mean).
import { type Datum, InvalidArgumentError, type LossFn } from '@pilotrl/core';
import { z } from 'zod';

/** Validates the loss's arguments and returns the loss. */
export type PolicyLossFactory = (args?: unknown) => LossFn;

export const klEstimatorSchema = z.enum(['k1', 'k3']);
export type KlEstimator = z.infer<typeof klEstimatorSchema>;

/**
 * Per-token estimate of KL(π‖π_ref) from the sampled token and its derivative with respect to
 * log π. k1 = log π − log π_ref (unbiased, can be negative); k3 = e^x − x − 1 with
 * x = log π_ref − log π (unbiased, always ≥ 0, lower variance; Schulman's estimator).
 */
export function klPenalty(
  type: KlEstimator,
  logprob: number,
  referenceLogprob: number,
): { value: number; grad: number } {
  if (type === 'k1') return { value: logprob - referenceLogprob, grad: 1 };
  const x = referenceLogprob - logprob;
  return { value: Math.exp(x) - x - 1, grad: 1 - Math.exp(x) };
}

/** The per-token array `key` of `datum`, or an error that names the datum and the fix. */
export function requireTokens(
  datum: Datum,
  key: 'advantages' | 'samplerLogprobs' | 'referenceLogprobs',
  index: number,
  loss: string,
): number[] {
  const values = datum[key];
  if (values === undefined) {
    throw new InvalidArgumentError(
      `${loss}: datum ${index} has no ${key}; the update step fills it before the loss`,
    );
  }
  return values;
}
