// Losses for a Tinker-backed policy. `tinkerLoss(name)` is one of the server's built-in losses as a
// core LossFn: computed here in TypeScript by SkyRL's formulas (so it runs on any TrainablePolicy),
// and recognised by TinkerPolicy, which then has the server compute it in one request. Any other
// LossFn runs as a surrogate (`surrogateDatums`): a forward pass gives the current logprobs, the
// LossFn gives d loss / d logprobs, and an `importance_sampling` pass whose gradient at that point
// is exactly that is sent (see the proof in losses.test.ts).
import { type Datum, InvalidArgumentError, type LossFn, parseOrThrow } from '@pilotrl/core';
import { z } from 'zod';

export const ppoClipSchema = z.strictObject({
  /** Lower bound of the importance ratio (Tinker's `clip_low_threshold`, e.g. 0.8). */
  clipLowThreshold: z.number().positive().lt(1).default(0.8),
  /** Upper bound of the importance ratio (`clip_high_threshold`, e.g. 1.2 or 1.28). */
  clipHighThreshold: z.number().gt(1).default(1.2),
});
export type PpoClip = z.input<typeof ppoClipSchema>;

export type BuiltinLoss =
  | { name: 'cross_entropy' }
  | { name: 'importance_sampling' }
  | { name: 'ppo'; clipLowThreshold: number; clipHighThreshold: number };

export type BuiltinLossName = BuiltinLoss['name'];

const builtinMarker = Symbol.for('@pilotrl/tinker/builtin-loss');

/** A core LossFn that TinkerPolicy sends to the server as the built-in loss it names. */
export type TinkerLossFn = LossFn & { readonly [builtinMarker]: BuiltinLoss };

/** The built-in loss `loss` stands for, or undefined for any other LossFn. */
export function builtinLossOf(loss: LossFn | BuiltinLossName): BuiltinLoss | undefined {
  if (typeof loss === 'string') {
    if (loss === 'ppo') return { name: 'ppo', ...ppoClipSchema.parse({}) };
    if (loss === 'cross_entropy' || loss === 'importance_sampling') return { name: loss };
    throw new InvalidArgumentError(
      `Unknown loss "${String(loss)}": give cross_entropy, importance_sampling, ppo, tinkerLoss(...) or a LossFn.`,
    );
  }
  return (loss as Partial<TinkerLossFn>)[builtinMarker];
}

function require(datum: Datum, key: 'samplerLogprobs' | 'advantages', d: number, loss: string): number[] {
  const values = datum[key];
  if (values === undefined)
    throw new InvalidArgumentError(`${loss}: datum ${d} has no ${key}, which this loss reads`);
  return values;
}

/**
 * Per token: loss and its derivative by the token's logprob, by SkyRL's formulas
 * (skyrl/tinker/loss_fns.py), each multiplied by the token's weight; r = exp(logp − logp_sampler).
 */
function tokenTerms(loss: BuiltinLoss, logprob: number, datum: Datum, t: number, d: number) {
  const weight = datum.weights[t]!;
  if (loss.name === 'cross_entropy') return { value: -weight * logprob, grad: -weight };
  const advantage = require(datum, 'advantages', d, loss.name)[t]!;
  const ratio = Math.exp(logprob - require(datum, 'samplerLogprobs', d, loss.name)[t]!);
  if (loss.name === 'importance_sampling')
    return { value: -weight * ratio * advantage, grad: -weight * ratio * advantage };
  const clipped = Math.min(Math.max(ratio, loss.clipLowThreshold), loss.clipHighThreshold);
  const unclippedObjective = ratio * advantage;
  const clippedObjective = clipped * advantage;
  // The objective is the smaller one; where the clipped one is smaller, the ratio is outside the
  // clip range and the token has no gradient.
  return clippedObjective < unclippedObjective
    ? { value: -weight * clippedObjective, grad: 0 }
    : { value: -weight * unclippedObjective, grad: -weight * ratio * advantage };
}

/** One of the server's built-in losses, as a LossFn (summed over tokens, like Tinker's). */
export function tinkerLoss(name: 'cross_entropy' | 'importance_sampling'): TinkerLossFn;
export function tinkerLoss(name: 'ppo', clip?: PpoClip): TinkerLossFn;
export function tinkerLoss(name: BuiltinLossName, clip?: PpoClip): TinkerLossFn {
  const loss: BuiltinLoss =
    name === 'ppo'
      ? { name, ...parseOrThrow(ppoClipSchema, clip ?? {}, 'ppo clip thresholds') }
      : builtinLossOf(name)!;
  const fn: LossFn = ({ datums, logprobs }) => {
    let total = 0;
    const gradLogprobs = datums.map((datum, d) =>
      datum.tokenIds.map((_, t) => {
        if (t === 0) return 0;
        const terms = tokenTerms(loss, logprobs[d]![t]!, datum, t, d);
        total += terms.value;
        return terms.grad;
      }),
    );
    return { loss: total, gradLogprobs };
  };
  return Object.assign(fn, { [builtinMarker]: loss });
}

/**
 * Datums for an `importance_sampling` pass whose gradient equals `gradLogprobs` at the current
 * logprobs `logprobs`: with sampler logprobs = current ones the ratio is 1, and the server's
 * d(−w·r·A)/d logp = −w·A, so A = −g/w. A token of weight 0 is masked on the server and cannot
 * carry a gradient.
 */
export function surrogateDatums(
  datums: readonly Datum[],
  logprobs: readonly (readonly number[])[],
  gradLogprobs: readonly (readonly number[])[],
): Datum[] {
  return datums.map((datum, d) => {
    const grads = gradLogprobs[d];
    if (grads === undefined || grads.length !== datum.tokenIds.length) {
      throw new InvalidArgumentError(
        `The loss returned ${grads?.length ?? 'no'} gradients for datum ${d} of ${datum.tokenIds.length} tokens`,
      );
    }
    const advantages = grads.map((grad, t) => {
      const weight = datum.weights[t]!;
      if (weight !== 0) return -grad / weight;
      if (grad !== 0 && t > 0) {
        throw new InvalidArgumentError(
          `The loss gave token ${t} of datum ${d} a gradient (${grad}) but its weight is 0; the Tinker ` +
            'server masks weight-0 tokens, so give such tokens a weight.',
        );
      }
      return 0;
    });
    return { ...datum, samplerLogprobs: [...logprobs[d]!], advantages };
  });
}
