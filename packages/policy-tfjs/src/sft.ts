// Supervised fine-tuning on (prompt, response) pairs: the prompt is rendered with the chat
// template and masked out of the loss; the response and its closing `<|end|>` are trained on
// with token-mean cross-entropy. `sftStep` is the one SFT update of the project (the app's warm
// start, benchmarks and `trainSft`'s shuffled minibatches under a schedule all call it), with one
// set of AdamW settings, `SFT_ADAM`.
import {
  type AdamParams,
  type ChatMessage,
  chatMessageSchema,
  createRng,
  type Datum,
  InvalidArgumentError,
  parseOrThrow,
  type TrainablePolicy,
} from '@pilotrl/core';
import { z } from 'zod';
import { renderChat } from './chat-template';
import type { TfjsPolicy } from './policy';
import { warmupCosine } from './schedules';
import { END_ID, type Tokenizer } from './tokenizer';

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

export interface SftExample {
  /** Chat messages before the reply (rendered with a generation prompt), or raw prompt ids. */
  prompt: readonly ChatMessage[] | readonly number[];
  /** The reply to learn: text (encoded, then `<|end|>` appended) or raw ids (used as given). */
  response: string | readonly number[];
}

export const sftOptionsSchema = z.object({
  steps: z.number().int().positive(),
  batchSize: z.number().int().positive().default(32),
  /** Peak learning rate of the warmup-cosine schedule (ignored when `schedule` is given). */
  learningRate: z.number().positive().default(3e-3),
  warmupSteps: z.number().int().nonnegative().default(10),
  weightDecay: z.number().min(0).default(SFT_ADAM.weightDecay),
  gradClipNorm: z.number().positive().default(SFT_ADAM.gradClipNorm),
  beta2: z.number().min(0).lt(1).default(SFT_ADAM.beta2),
  /** Seed of the minibatch order. */
  seed: z.number().int().nonnegative().default(0),
});
export type SftOptions = z.input<typeof sftOptionsSchema> & {
  /** Learning rate per step (0-based); overrides the warmup-cosine schedule. */
  schedule?: (step: number) => number;
  /** Called after every step. */
  onStep?: (info: { step: number; loss: number; learningRate: number; gradNorm: number }) => void;
};

export interface SftReport {
  /** Token-mean loss of each step. */
  losses: number[];
  /** Trained (response) tokens seen. */
  tokens: number;
}

const promptSchema = z.union([z.array(chatMessageSchema), z.array(z.number().int().nonnegative())]);

/** The datum of one example: prompt weights 0, response weights 1. */
export function sftDatum(tokenizer: Tokenizer, example: SftExample): Datum {
  const prompt = parseOrThrow(promptSchema, example.prompt, 'SFT example prompt');
  const promptIds =
    prompt.length > 0 && typeof prompt[0] === 'number'
      ? (prompt as number[])
      : renderChat(tokenizer, prompt as ChatMessage[]);
  const responseIds =
    typeof example.response === 'string'
      ? [...tokenizer.encode(example.response), END_ID]
      : [...example.response];
  const tokenIds = [...promptIds, ...responseIds];
  return { tokenIds, weights: tokenIds.map((_, i) => (i < promptIds.length ? 0 : 1)) };
}

/** Trains `policy` on `examples` for `options.steps` AdamW steps. */
export async function trainSft(
  policy: TfjsPolicy,
  examples: readonly SftExample[],
  options: SftOptions,
): Promise<SftReport> {
  const resolved = parseOrThrow(sftOptionsSchema, options, 'SFT options');
  const datums = examples.map((example) => sftDatum(policy.tokenizer, example));
  const schedule =
    options.schedule ??
    warmupCosine({
      peak: resolved.learningRate,
      warmupSteps: resolved.warmupSteps,
      totalSteps: resolved.steps,
    });
  const rng = createRng(resolved.seed);
  let order: number[] = [];
  let cursor = 0;
  const losses: number[] = [];
  let tokens = 0;
  for (let step = 0; step < resolved.steps; step++) {
    const batch: Datum[] = [];
    while (batch.length < Math.min(resolved.batchSize, datums.length)) {
      if (cursor >= order.length) {
        order = rng.shuffle([...datums.keys()]);
        cursor = 0;
      }
      batch.push(datums[order[cursor++]!]!);
    }
    const learningRate = schedule(step);
    const { loss, gradNorm, trainedTokens } = await sftStep(policy, batch, {
      learningRate,
      beta2: resolved.beta2,
      weightDecay: resolved.weightDecay,
      gradClipNorm: resolved.gradClipNorm,
    });
    losses.push(loss);
    tokens += trainedTokens;
    options.onStep?.({ step, loss, learningRate, gradNorm });
  }
  return { losses, tokens };
}
