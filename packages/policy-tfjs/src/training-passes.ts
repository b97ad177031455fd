// The training passes of TfjsPolicy and HfPolicy: `forward` (logprobs, entropies, values) and
// `forwardBackward` (loss, logprobs, metrics, gradient), over any `TrainingModel`. Both run a batch
// in chunks of at most `maxTrainTokens` tokens; losses are sums over tokens and gradients add up in
// a `GradientSum` until `optimStep`, so the chunks give the loss, logprobs and update of one pass.
import {
  type Datum,
  type ForwardBackwardResult,
  type ForwardResult,
  InvalidArgumentError,
  type LossFn,
} from '@pilotrl/core';
import * as tf from '@tensorflow/tfjs-core';
import { inScope, rowEntropy, targetLogprobs } from './model';
import { tokenChunks } from './token-chunks';
import { hasWeight, type PreparedBatch, prepareBatch } from './training-batches';

/**
 * What the passes need of a model: hidden states of a causal pass from position 0, logits, and the
 * weights a loss moves (a value head's named `value.*`, trained only when a loss asks for values).
 */
export interface TrainingModel {
  readonly config: { readonly vocabSize: number; readonly valueHead?: boolean };
  readonly trainableWeights: ReadonlyMap<string, tf.Variable>;
  run(ids: tf.Tensor2D, positions: tf.Tensor2D, bias: null): { hidden: tf.Tensor2D };
  logits(hidden: tf.Tensor2D): tf.Tensor2D;
  /** Value-head estimates [rows]; called only when `config.valueHead` is true. */
  values?(hidden: tf.Tensor2D): tf.Tensor1D;
}

/** Gradients by weight name, summed over chunks and calls until the optimizer takes them. */
export class GradientSum {
  private readonly sums = new Map<string, tf.Tensor>();
  /** Weight name of each variable, as `tf.variableGrads` names gradients by variable. */
  private readonly weightNames = new Map<string, string>();

  constructor(weights: ReadonlyMap<string, tf.Variable>) {
    for (const [name, variable] of weights) this.weightNames.set(variable.name, name);
  }

  /** The sums by weight name; empty when nothing was accumulated. */
  get tensors(): ReadonlyMap<string, tf.Tensor> {
    return this.sums;
  }

  /** Adds gradients named by variable, taking ownership of them. */
  add(grads: tf.NamedTensorMap): void {
    for (const [variableName, grad] of Object.entries(grads)) {
      const name = this.weightNames.get(variableName)!;
      const previous = this.sums.get(name);
      if (previous === undefined) {
        this.sums.set(name, grad);
      } else {
        this.sums.set(name, tf.keep(tf.add(previous, grad)));
        tf.dispose([previous, grad]);
      }
    }
  }

  /** Frees the sums. */
  clear(): void {
    tf.dispose([...this.sums.values()]);
    this.sums.clear();
  }
}

/** What `forwardBackward` was asked for, options resolved. */
export interface LossSettings {
  loss: LossFn | 'cross_entropy';
  entropyCoef: number;
  valueCoef: number;
}

/** Logprobs, entropies and (with a value head) values of checked datums. */
export function forwardPass(
  model: TrainingModel,
  datums: readonly Datum[],
  maxTrainTokens: number,
): ForwardResult[] {
  const results: ForwardResult[] = [];
  for (const chunk of tokenChunks(datums, maxTrainTokens)) results.push(...forwardChunk(model, chunk));
  return results;
}

/**
 * Adds the gradient of the loss over checked datums to `gradients`. A `LossFn` is called once per
 * chunk; the policy's own metrics (`loss`, `tokens`, `entropy`, `value_loss`) are sums over the
 * batch, and the loss function's metrics are averaged over chunks.
 */
export function forwardBackwardPass(
  model: TrainingModel,
  datums: readonly Datum[],
  settings: LossSettings,
  maxTrainTokens: number,
  gradients: GradientSum,
): ForwardBackwardResult {
  const { loss, entropyCoef, valueCoef } = settings;
  const useValue = valueCoef > 0 && datums.some((d) => d.returns !== undefined);
  if (useValue && !model.config.valueHead) {
    throw new InvalidArgumentError(
      'forwardBackward: valueCoef > 0 needs a model built with { valueHead: true }',
    );
  }
  const select = loss === 'cross_entropy' ? 'weighted' : 'all';
  // Cross-entropy only computes weighted tokens, so a chunk without any adds nothing.
  const trains = (chunk: readonly Datum[]) => select === 'all' || chunk.some(hasWeight);
  if (!trains(datums)) {
    throw new InvalidArgumentError('every datum has zero weight on every token: nothing to train on');
  }
  const chunkSettings = { loss, select, entropyCoef, valueCoef, useValue } as const;
  const result: ForwardBackwardResult = { loss: 0, logprobs: [], metrics: {} };
  const summed: Record<string, number> = { tokens: 0 };
  const lossMetrics: Record<string, number> = {};
  let lossCalls = 0;
  for (const chunk of tokenChunks(datums, maxTrainTokens)) {
    if (!trains(chunk)) {
      result.logprobs.push(...chunk.map((d) => new Array<number>(d.tokenIds.length).fill(0)));
      continue;
    }
    const part = forwardBackwardChunk(model, chunk, chunkSettings, gradients);
    result.loss += part.loss;
    result.logprobs.push(...part.logprobs);
    for (const [key, value] of Object.entries(part.summed)) summed[key] = (summed[key] ?? 0) + value;
    if (part.lossMetrics !== undefined) {
      lossCalls += 1;
      for (const [key, value] of Object.entries(part.lossMetrics)) {
        lossMetrics[key] = (lossMetrics[key] ?? 0) + value;
      }
    }
  }
  for (const [key, value] of Object.entries(lossMetrics)) result.metrics[key] = value / lossCalls;
  Object.assign(result.metrics, summed, { loss: result.loss });
  return result;
}

interface ChunkResult {
  loss: number;
  logprobs: number[][];
  /** Metrics that add up over chunks. */
  summed: Record<string, number>;
  /** The loss function's own metrics, when it is a function. */
  lossMetrics: Record<string, number> | undefined;
}

function forwardChunk(model: TrainingModel, datums: Datum[]): ForwardResult[] {
  const batch = prepareBatch(datums, 'all', model.config.vocabSize);
  try {
    return inScope(() => {
      const { logits, hidden } = selectedLogits(model, batch);
      const logp = targetLogprobs(logits, batch.targets).dataSync();
      const entropy = rowEntropy(logits).dataSync();
      const values = model.config.valueHead ? model.values!(hidden).dataSync() : undefined;
      return batch.datums.map((datum, d) => {
        const n = datum.tokenIds.length;
        const entropies = new Array<number>(n).fill(0);
        const out: ForwardResult = { logprobs: new Array(n).fill(0), entropies };
        if (values !== undefined) out.values = new Array(n).fill(0);
        batch.rowsOf[d]!.forEach((row, t) => {
          if (row < 0) return;
          out.logprobs[t] = logp[row]!;
          entropies[t] = entropy[row]!;
          if (out.values !== undefined) out.values[t] = values![row]!;
        });
        return out;
      });
    });
  } finally {
    batch.dispose();
  }
}

function forwardBackwardChunk(
  model: TrainingModel,
  datums: Datum[],
  settings: LossSettings & { select: 'all' | 'weighted'; useValue: boolean },
  gradients: GradientSum,
): ChunkResult {
  const { loss, select, entropyCoef, valueCoef, useValue } = settings;
  const batch = prepareBatch(datums, select, model.config.vocabSize);
  const summed: Record<string, number> = {};
  let lossMetrics: Record<string, number> | undefined;
  let logprobs: number[][] = [];
  let reported = 0;
  try {
    const { value, grads } = tf.variableGrads(
      () => {
        const { logits, hidden } = selectedLogits(model, batch);
        const logp = targetLogprobs(logits, batch.targets);
        const logpValues = logp.dataSync();
        logprobs = batch.rowsOf.map((rows) => rows.map((row) => (row < 0 ? 0 : logpValues[row]!)));
        let total: tf.Tensor;
        if (loss === 'cross_entropy') {
          total = tf.neg(tf.sum(tf.mul(logp, batch.weights)));
          reported = -dot(logpValues, batch.weightValues);
        } else {
          const output = loss({ datums: batch.datums, logprobs });
          const coefficients = new Float32Array(batch.targetCount);
          batch.datums.forEach((datum, d) => {
            const grad = output.gradLogprobs[d];
            if (grad === undefined || grad.length !== datum.tokenIds.length) {
              throw new InvalidArgumentError(
                `loss function returned gradLogprobs[${d}] with ${grad?.length ?? 'no'} entries; datum ${d} of its call has ${datum.tokenIds.length} tokens`,
              );
            }
            batch.rowsOf[d]!.forEach((row, t) => {
              if (row >= 0) coefficients[row] = grad[t]!;
            });
          });
          total = tf.sum(tf.mul(logp, tf.tensor1d(coefficients)));
          reported = output.loss;
          lossMetrics = output.metrics ?? {};
        }
        if (entropyCoef > 0) {
          const entropy = tf.sum(tf.mul(rowEntropy(logits), batch.weights));
          const entropyValue = entropy.dataSync()[0]!;
          summed.entropy = entropyValue;
          reported -= entropyCoef * entropyValue;
          total = tf.sub(total, tf.mul(entropy, entropyCoef));
        }
        if (useValue) {
          const error = tf.sub(model.values!(hidden), batch.returns);
          const valueLoss = tf.div(tf.sum(tf.mul(tf.square(error), batch.returnWeights)), 2);
          const valueLossValue = valueLoss.dataSync()[0]!;
          summed.value_loss = valueLossValue;
          reported += valueCoef * valueLossValue;
          total = tf.add(total, tf.mul(valueLoss, valueCoef));
        }
        return total as tf.Scalar;
      },
      trainableVariables(model, useValue),
    );
    value.dispose();
    gradients.add(grads);
  } finally {
    batch.dispose();
  }
  summed.tokens = batch.weightValues.reduce((n, w) => n + (w !== 0 ? 1 : 0), 0);
  return { loss: reported, logprobs, summed, lossMetrics };
}

/** The weights a loss moves: all of them, without the value head unless it is trained. */
function trainableVariables(model: TrainingModel, withValueHead: boolean): tf.Variable[] {
  return [...model.trainableWeights.entries()]
    .filter(([name]) => withValueHead || !name.startsWith('value.'))
    .map(([, variable]) => variable);
}

/** Hidden states and (masked) logits of the rows the batch computes. */
function selectedLogits(model: TrainingModel, batch: PreparedBatch) {
  const { hidden } = model.run(batch.inputs, batch.positions, null);
  const selected = tf.gather(hidden, batch.rows) as tf.Tensor2D;
  const logits = model.logits(selected);
  const masked = batch.logitMask ? (tf.add(logits, batch.logitMask) as tf.Tensor2D) : logits;
  return { logits: masked, hidden: selected };
}

function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let total = 0;
  for (let i = 0; i < a.length; i++) total += a[i]! * b[i]!;
  return total;
}
