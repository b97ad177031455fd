// The trainer contract, shaped like the Tinker training API: accumulate gradients with
// `forwardBackward`, apply them with `optimStep`, sample with `sampler()`. Losses are summed over
// tokens; callers scale per-token weights/advantages to get token-mean or sequence-mean.
import { z } from 'zod';
import type { Policy } from './policy';

const tokenIds = z.array(z.number().int().nonnegative()).min(2);

/**
 * One training sequence. Every per-token array is aligned with `tokenIds`: entry t concerns the
 * prediction of `tokenIds[t]` from `tokenIds[0..t-1]`, so entry 0 is never trained on.
 */
export const datumSchema = z
  .object({
    tokenIds,
    /** Loss weight per token: 0 for prompt and environment tokens, >0 for model tokens. */
    weights: z.array(z.number()),
    /** Logprobs under the policy that sampled the tokens (for importance ratios). */
    samplerLogprobs: z.array(z.number()).optional(),
    /** Per-token advantages. */
    advantages: z.array(z.number()).optional(),
    /** Per-token logprobs under a frozen reference policy (for a KL term). */
    referenceLogprobs: z.array(z.number()).optional(),
    /** Per-token value targets (returns), for policies with a value head. */
    returns: z.array(z.number()).optional(),
    /**
     * Per token, the ids it was chosen among (null: the whole vocabulary). The logprob of such a
     * token is normalised over its set, as constrained decoding sampled it, so importance ratios
     * against the sampler's logprobs are exact and gradients only move probability within the set.
     */
    allowedTokenIds: z.array(z.array(z.number().int().nonnegative()).min(1).nullable()).optional(),
  })
  .superRefine((datum, context) => {
    const length = datum.tokenIds.length;
    for (const key of [
      'weights',
      'samplerLogprobs',
      'advantages',
      'referenceLogprobs',
      'returns',
      'allowedTokenIds',
    ] as const) {
      const values = datum[key];
      if (values !== undefined && values.length !== length) {
        context.addIssue({
          code: 'custom',
          path: [key],
          message: `has ${values.length} entries but tokenIds has ${length}`,
        });
      }
    }
    if (datum.weights[0] !== undefined && datum.weights[0] !== 0) {
      context.addIssue({
        code: 'custom',
        path: ['weights', 0],
        message: 'the first token has no prediction; its weight must be 0',
      });
    }
    datum.allowedTokenIds?.forEach((allowed, t) => {
      if (allowed !== null && t > 0 && !allowed.includes(datum.tokenIds[t]!)) {
        context.addIssue({
          code: 'custom',
          path: ['allowedTokenIds', t],
          message: `token ${datum.tokenIds[t]} is not among its allowed ids`,
        });
      }
    });
  });
export type Datum = z.infer<typeof datumSchema>;

export interface ForwardResult {
  /** logprob of tokenIds[t] given the prefix; entry 0 is 0. */
  logprobs: number[];
  /**
   * Entropy of the next-token distribution that predicts tokenIds[t]; entry 0 is 0. Absent when
   * the backend returns only the targets' logprobs (the Tinker API).
   */
  entropies?: number[];
  /** Value-head estimates per position, when the policy has a value head. */
  values?: number[];
}

/** Input of a loss written outside the policy, as a function of per-token logprobs. */
export interface LossFnInput {
  datums: readonly Datum[];
  /** Current logprobs per datum (aligned with tokenIds). */
  logprobs: readonly (readonly number[])[];
}

export interface LossFnOutput {
  /** The loss value (summed over tokens, already weighted). */
  loss: number;
  /** d loss / d logprobs[d][t]; the policy back-propagates these through the model. */
  gradLogprobs: number[][];
  metrics?: Record<string, number>;
}

/** A loss over per-token logprobs. `cross_entropy` is built into every trainable policy. */
export type LossFn = (input: LossFnInput) => LossFnOutput;

export const forwardBackwardOptionsSchema = z.object({
  /** Adds `-entropyCoef × Σ weights·entropy` to the loss. */
  entropyCoef: z.number().min(0).default(0),
  /** Adds `valueCoef × Σ weights·(value - return)²/2` for datums with `returns`. */
  valueCoef: z.number().min(0).default(0),
});
export type ForwardBackwardOptions = z.input<typeof forwardBackwardOptionsSchema>;

export interface ForwardBackwardResult {
  loss: number;
  /** Logprobs computed in the forward pass, per datum. */
  logprobs: number[][];
  metrics: Record<string, number>;
}

export const adamParamsSchema = z.object({
  learningRate: z.number().positive(),
  beta1: z.number().min(0).lt(1).default(0.9),
  beta2: z.number().min(0).lt(1).default(0.999),
  eps: z.number().positive().default(1e-8),
  /** Decoupled (AdamW) weight decay. */
  weightDecay: z.number().min(0).default(0),
  /** Clip the global gradient norm to this value before the step. */
  gradClipNorm: z.number().positive().optional(),
});
export type AdamParams = z.input<typeof adamParamsSchema>;

export interface OptimStepResult {
  /** Global gradient norm before clipping. */
  gradNorm: number;
  /** The policy version after the step. */
  version: number;
}

export interface TrainablePolicy {
  readonly name: string;
  /** Increments with every `optimStep`. */
  readonly version: number;
  forward(datums: readonly Datum[]): Promise<ForwardResult[]>;
  /** Computes the loss and accumulates its gradient (until `optimStep`). */
  forwardBackward(
    datums: readonly Datum[],
    loss: LossFn | 'cross_entropy',
    options?: ForwardBackwardOptions,
  ): Promise<ForwardBackwardResult>;
  /** Applies and clears the accumulated gradient. */
  optimStep(params: AdamParams): Promise<OptimStepResult>;
  /** A sampler on the current weights; it reports this policy's version. */
  sampler(): Policy;
  /** Encodes `text` to token ids (the policy's own tokenizer). */
  encode(text: string): number[];
  /** Writes weights, optimizer state and config to `dir` atomically. */
  saveState(dir: string): Promise<void>;
  loadState(dir: string): Promise<void>;
}
