// One supervised step of the Hugging Face decoder: the mean next-token cross-entropy over the
// tokens a loss mask selects (transformers' causal LM loss with label -100 on the others), and one
// AdamW step on the trainable weights (the LoRA adapters when there are any, every weight otherwise).
import { type AdamParams, adamParamsSchema, InvalidArgumentError, parseOrThrow } from '@pilotrl/core';
import * as tf from '@tensorflow/tfjs-core';
import { z } from 'zod';
import type { AdamW } from '../adamw';
import { targetLogprobs } from '../model';
import type { HfDecoderModel } from './llama';

export const supervisedBatchSchema = z
  .object({
    /** Token ids, one row per sequence (rows may differ in length). */
    ids: z.array(z.array(z.number().int().nonnegative()).min(1)).min(1),
    /** Per token of `ids`: 1 when the token is a target (predicted from the ones before it), else 0. */
    lossMask: z.array(z.array(z.number().int().min(0).max(1))),
  })
  .strict();
export type SupervisedBatch = z.input<typeof supervisedBatchSchema>;

export interface SupervisedStepResult {
  /** The mean masked next-token cross-entropy before the step. */
  loss: number;
  /** Tokens the loss averaged over. */
  targetTokens: number;
  /** Global gradient norm before clipping. */
  gradNorm: number;
}

/** `batch` checked: the mask aligned with the ids, every id in the vocabulary, at least one target. */
function checkBatch(batch: SupervisedBatch, vocabSize: number): z.output<typeof supervisedBatchSchema> {
  const checked = parseOrThrow(supervisedBatchSchema, batch, 'supervised batch');
  const { ids, lossMask } = checked;
  if (lossMask.length !== ids.length) {
    throw new InvalidArgumentError(
      `supervised batch: lossMask has ${lossMask.length} rows but ids has ${ids.length}; give one mask row per id row`,
    );
  }
  let targets = 0;
  ids.forEach((row, r) => {
    const mask = lossMask[r]!;
    if (mask.length !== row.length) {
      throw new InvalidArgumentError(
        `supervised batch: lossMask[${r}] has ${mask.length} entries but ids[${r}] has ${row.length} tokens`,
      );
    }
    row.forEach((id, t) => {
      if (id >= vocabSize) {
        throw new InvalidArgumentError(
          `supervised batch: ids[${r}][${t}] is ${id}, past the model's vocabulary of ${vocabSize}`,
        );
      }
      if (t > 0) targets += mask[t]!;
    });
  });
  if (targets === 0) {
    throw new InvalidArgumentError(
      'supervised batch: no token after the first of a row is masked in, so there is nothing to predict',
    );
  }
  return checked;
}

/**
 * Computes the loss of `batch` on `model` and applies one step of `optimizer` with `adam` to
 * `trainable` (weights by name). Rows are right-padded to one length: a causal model's earlier
 * positions never see the padding, and padded positions are not targets.
 */
export async function supervisedStep(
  model: HfDecoderModel,
  trainable: ReadonlyMap<string, tf.Variable>,
  optimizer: AdamW,
  batch: SupervisedBatch,
  adam: AdamParams,
): Promise<SupervisedStepResult> {
  const { ids, lossMask } = checkBatch(batch, model.config.vocabSize);
  const params = parseOrThrow(adamParamsSchema, adam, 'AdamW parameters');
  const time = Math.max(...ids.map((row) => row.length));
  const padded = ids.map((row) => [...row, ...new Array<number>(time - row.length).fill(0)]);
  // Position t of a row predicts token t + 1: the rows of the flattened hidden states that have a target.
  const sources: number[] = [];
  const targets: number[] = [];
  ids.forEach((row, r) => {
    for (let t = 1; t < row.length; t++) {
      if (lossMask[r]![t] === 1) {
        sources.push(r * time + t - 1);
        targets.push(row[t]!);
      }
    }
  });
  const variables = [...trainable.values()];
  const nameOf = new Map([...trainable].map(([name, variable]) => [variable.name, name]));
  const { value, grads } = tf.tidy(() => {
    const idTensor = tf.tensor2d(padded, [ids.length, time], 'int32');
    const positions = tf.tile(tf.range(0, time, 1, 'int32').expandDims(0), [ids.length, 1]) as tf.Tensor2D;
    const sourceRows = tf.tensor1d(sources, 'int32');
    const targetIds = tf.tensor1d(targets, 'int32');
    return tf.variableGrads(() => {
      const { hidden } = model.run(idTensor, positions, null);
      const logits = model.logits(tf.gather(hidden, sourceRows));
      return tf.div(tf.neg(tf.sum(targetLogprobs(logits, targetIds))), targets.length) as tf.Scalar;
    }, variables);
  });
  try {
    const loss = (await value.data())[0]!;
    const named = new Map(
      Object.entries(grads).map(([variableName, grad]) => [nameOf.get(variableName)!, grad]),
    );
    const gradNorm = optimizer.apply(trainable, named, params);
    return { loss, targetTokens: targets.length, gradNorm };
  } finally {
    tf.dispose([value, ...Object.values(grads)]);
  }
}
