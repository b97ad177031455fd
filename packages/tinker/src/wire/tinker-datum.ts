// Our Datum in Tinker's shape. Ours aligns every per-token array with `tokenIds` (entry t concerns
// predicting tokenIds[t], so entry 0 is never trained on); Tinker's feeds S[:-1] as the model input
// and asks position i to predict S[i+1] (`target_tokens` = S[1:]), every per-token input shifted
// the same way (Tinker docs, "losses"; SkyRL docs, "token shifting"). So each of our arrays loses
// its entry 0, and the logprobs Tinker returns gain a 0 in front.
import type { Datum } from '@pilotrl/core';

export interface TinkerDatum {
  /** S[:-1]. */
  modelInput: number[];
  /** `target_tokens` (S[1:]) and the per-token inputs the loss reads, each of length |S| - 1. */
  lossFnInputs: Record<string, number[]>;
}

export type TinkerLossInputs = 'weights' | 'logprobs' | 'advantages';

/**
 * The Tinker datum of `datum`, with the per-token inputs named in `inputs` (`logprobs` is ours
 * `samplerLogprobs`). Weights are always sent: SkyRL multiplies every loss by them.
 */
export function toTinkerDatum(datum: Datum, inputs: readonly TinkerLossInputs[]): TinkerDatum {
  const shifted = (values: readonly number[]) => values.slice(1);
  const lossFnInputs: Record<string, number[]> = {
    target_tokens: shifted(datum.tokenIds),
    weights: shifted(datum.weights),
  };
  if (inputs.includes('logprobs')) lossFnInputs.logprobs = shifted(datum.samplerLogprobs ?? []);
  if (inputs.includes('advantages')) lossFnInputs.advantages = shifted(datum.advantages ?? []);
  return { modelInput: datum.tokenIds.slice(0, -1), lossFnInputs };
}

/** Per-token values Tinker returned for a datum of `length` tokens, aligned with our tokenIds. */
export function fromTinkerPerToken(values: readonly number[], length: number, what: string): number[] {
  if (values.length !== length - 1) {
    throw new RangeError(`${what}: the server returned ${values.length} values for ${length - 1} targets`);
  }
  return [0, ...values];
}
