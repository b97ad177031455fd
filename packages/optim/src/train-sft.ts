// Supervised fine-tuning over a data set: `sftStep` on shuffled minibatches (every datum once per
// pass, a new order each pass) under a warmup-cosine learning rate or a schedule of the caller's.
// Datums come from the policy's own tokenizer (`sftDatum` of @pilotrl/policy-tfjs renders a
// prompt and its reply, the prompt masked out); any TrainablePolicy trains.
import { createRng, type Datum, parseOrThrow, type TrainablePolicy } from '@pilotrl/core';
import { z } from 'zod';
import { warmupCosine } from './schedules';
import { SFT_ADAM, sftStep } from './sft-step';

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

/** Trains `policy` on `datums` for `options.steps` AdamW steps. */
export async function trainSft(
  policy: TrainablePolicy,
  datums: readonly Datum[],
  options: SftOptions,
): Promise<SftReport> {
  const resolved = parseOrThrow(sftOptionsSchema, options, 'SFT options');
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
