// Training datums as tensors: a whole batch validated against the model before any of it runs,
// then each chunk right-padded into inputs, with the rows whose predictions are computed, their
// targets, weights and returns, and a logit mask for tokens chosen among a restricted set.
import { type Datum, datumSchema, InvalidArgumentError, parseOrThrow } from '@pilotrl/core';
import * as tf from '@tensorflow/tfjs-core';
import { PAD_ID } from './tokenizer';

export interface PreparedBatch {
  inputs: tf.Tensor2D;
  positions: tf.Tensor2D;
  rows: tf.Tensor1D;
  targets: tf.Tensor1D;
  weights: tf.Tensor1D;
  returns: tf.Tensor1D;
  returnWeights: tf.Tensor1D;
  /** Added to the logits: a large negative value outside each restricted row's allowed ids. */
  logitMask: tf.Tensor2D | null;
  datums: Datum[];
  /** Per datum, per token: the computed row holding its prediction, or -1. */
  rowsOf: number[][];
  weightValues: number[];
  targetCount: number;
  dispose(): void;
}

/**
 * Validates a whole batch before any chunk of it runs, so a bad datum leaves no gradient: every
 * datum within `contextLength` tokens, every id within `vocabSize`.
 */
export function checkDatums(
  config: { readonly contextLength: number; readonly vocabSize: number },
  input: readonly Datum[],
): Datum[] {
  if (input.length === 0) throw new InvalidArgumentError('training needs at least one datum');
  const datums = input.map((d, i) => parseOrThrow(datumSchema, d, `datum ${i}`));
  const limit = config.contextLength;
  const vocab = config.vocabSize;
  datums.forEach((datum, i) => {
    if (datum.tokenIds.length > limit) {
      throw new InvalidArgumentError(
        `datum ${i} has ${datum.tokenIds.length} tokens; the context holds ${limit}`,
      );
    }
    const bad = datum.tokenIds.find((id) => id >= vocab);
    if (bad !== undefined)
      throw new InvalidArgumentError(`datum ${i} has token id ${bad}, outside the vocabulary of ${vocab}`);
    const badAllowed = datum.allowedTokenIds?.flatMap((ids) => ids ?? []).find((id) => id >= vocab);
    if (badAllowed !== undefined) {
      throw new InvalidArgumentError(
        `datum ${i} allows token id ${badAllowed}, outside the vocabulary of ${vocab}`,
      );
    }
  });
  return datums;
}

/**
 * Right-pads checked datums into [batch, maxLength-1] inputs. `select` picks which predictions
 * are computed: every real token ('all') or only those with a non-zero weight ('weighted').
 */
export function prepareBatch(datums: Datum[], select: 'all' | 'weighted', vocabSize: number): PreparedBatch {
  const time = Math.max(...datums.map((d) => d.tokenIds.length)) - 1;
  const ids = new Int32Array(datums.length * time).fill(PAD_ID);
  const positions = new Int32Array(datums.length * time);
  const rows: number[] = [];
  const targets: number[] = [];
  const weightValues: number[] = [];
  const returns: number[] = [];
  const returnWeights: number[] = [];
  /** Rows whose prediction is restricted to a set of ids, with that set. */
  const restricted: { row: number; allowed: readonly number[] }[] = [];
  const rowsOf = datums.map((datum, b) => {
    const mapping: number[] = [-1];
    for (let t = 0; t < time; t++) positions[b * time + t] = t;
    datum.tokenIds.slice(0, -1).forEach((id, t) => {
      ids[b * time + t] = id;
    });
    for (let t = 1; t < datum.tokenIds.length; t++) {
      const weight = datum.weights[t]!;
      if (select === 'weighted' && weight === 0) {
        mapping.push(-1);
        continue;
      }
      const allowed = datum.allowedTokenIds?.[t];
      if (allowed != null) restricted.push({ row: rows.length, allowed });
      mapping.push(rows.length);
      rows.push(b * time + t - 1);
      targets.push(datum.tokenIds[t]!);
      weightValues.push(weight);
      returns.push(datum.returns?.[t] ?? 0);
      returnWeights.push(datum.returns === undefined ? 0 : weight);
    }
    return mapping;
  });
  const tensors = {
    inputs: tf.tensor2d(ids, [datums.length, time], 'int32'),
    positions: tf.tensor2d(positions, [datums.length, time], 'int32'),
    rows: tf.tensor1d(rows, 'int32'),
    targets: tf.tensor1d(targets, 'int32'),
    weights: tf.tensor1d(weightValues),
    returns: tf.tensor1d(returns),
    returnWeights: tf.tensor1d(returnWeights),
    logitMask: restricted.length > 0 ? logitMask(restricted, rows.length, vocabSize) : null,
  };
  return {
    ...tensors,
    datums,
    rowsOf,
    weightValues,
    targetCount: rows.length,
    dispose: () => tf.dispose(Object.values(tensors).filter((t) => t !== null)),
  };
}

/** Whether a datum trains on at least one token. */
export function hasWeight(datum: Datum): boolean {
  return datum.weights.some((w) => w !== 0);
}

/** Logit offsets [rows, vocab]: 0 where allowed (and on unrestricted rows), -1e9 elsewhere. */
function logitMask(
  restricted: readonly { row: number; allowed: readonly number[] }[],
  rows: number,
  vocab: number,
): tf.Tensor2D {
  const mask = new Float32Array(rows * vocab);
  for (const { row, allowed } of restricted) {
    mask.fill(-1e9, row * vocab, (row + 1) * vocab);
    for (const id of allowed) mask[row * vocab + id] = 0;
  }
  return tf.tensor2d(mask, [rows, vocab]);
}
