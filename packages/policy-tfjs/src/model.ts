// The decoder-only transformer: pre-LayerNorm GPT blocks with fused QKV, learned positions, tied
// input/output embedding and an optional linear value head, written with raw tfjs ops in the
// forms that are fast on wasm (2-D fused matmuls, sigmoid-form GELU, gather embeddings).
import { createRng, InvalidArgumentError, parseOrThrow } from '@pilotrl/core';
import * as tf from '@tensorflow/tfjs-core';
import { z } from 'zod';

export const modelConfigSchema = z
  .object({
    vocabSize: z.number().int().positive(),
    dModel: z.number().int().positive(),
    nLayers: z.number().int().positive(),
    nHeads: z.number().int().positive(),
    /** Longest sequence (prompt + generation) the model accepts. */
    contextLength: z.number().int().min(2),
    /** Width of the MLP as a multiple of dModel. */
    mlpRatio: z.number().int().positive().default(4),
    /** Adds a linear value head on the final hidden state (for actor-critic losses). */
    valueHead: z.boolean().default(false),
    /** Seed of the weight initialisation. */
    seed: z.number().int().nonnegative().default(0),
  })
  .refine((c) => c.dModel % c.nHeads === 0, {
    message: 'dModel must be divisible by nHeads',
    path: ['nHeads'],
  });
export type ModelConfig = z.output<typeof modelConfigSchema>;
export type ModelConfigInput = z.input<typeof modelConfigSchema>;

/** Keys and values of one layer, [batch, heads, time, headDim]. */
export interface LayerCache {
  k: tf.Tensor4D;
  v: tf.Tensor4D;
}

export interface RunResult {
  /** Final (normalised) hidden states, [batch·time, dModel]. */
  hidden: tf.Tensor2D;
  /** Keys and values including the new tokens (only when requested). */
  cache: LayerCache[];
}

/** Additive attention bias value for masked positions. */
export const MASKED = -1e9;

/** Parameter count of a configuration, without building it. */
export function parameterCount(input: ModelConfigInput): number {
  const c = parseOrThrow(modelConfigSchema, input, 'model config');
  const d = c.dModel;
  const f = d * c.mlpRatio;
  const layer = 4 * d + (d * 3 * d + 3 * d) + (d * d + d) + (d * f + f) + (f * d + d);
  return c.vocabSize * d + c.contextLength * d + c.nLayers * layer + 2 * d + (c.valueHead ? d + 1 : 0);
}

export class TransformerModel {
  readonly config: ModelConfig;
  /** Trainable weights by stable name, in a fixed order (the checkpoint order). */
  readonly weights: ReadonlyMap<string, tf.Variable>;

  /**
   * Builds the model of `input` with weights drawn from its seed, or with `initial` (weights by
   * name and of the same shapes, such as another model's `weights`) without drawing any. A copied
   * weight shares its source's memory until either of them is assigned new values.
   */
  constructor(input: ModelConfigInput, initial?: ReadonlyMap<string, tf.Tensor>) {
    this.config = parseOrThrow(modelConfigSchema, input, 'model config');
    const { vocabSize, dModel: d, nLayers, contextLength, mlpRatio, valueHead, seed } = this.config;
    const f = d * mlpRatio;
    const rng = createRng(seed);
    const weights = new Map<string, tf.Variable>();
    const add = (name: string, shape: number[], draw: () => tf.Tensor) => {
      const source =
        initial === undefined ? undefined : weightOfShape(initial, name, shape, 'the initial weight map');
      weights.set(
        name,
        tf.tidy(() => tf.variable(source === undefined ? draw() : source.clone(), true)),
      );
    };
    const normal = (name: string, shape: number[], std: number) =>
      add(name, shape, () => {
        const values = new Float32Array(shape.reduce((a, b) => a * b, 1));
        const noise = rng.fork(name);
        for (let i = 0; i < values.length; i++) values[i] = noise.normal() * std;
        return tf.tensor(values, shape);
      });
    const constant = (name: string, shape: number[], value: number) =>
      add(name, shape, () => tf.fill(shape, value));
    // GPT-2 initialisation: residual output projections scaled by 1/sqrt(2·layers).
    const residualStd = 0.02 / Math.sqrt(2 * nLayers);
    normal('wte', [vocabSize, d], 0.02);
    normal('wpe', [contextLength, d], 0.01);
    for (let l = 0; l < nLayers; l++) {
      constant(`h${l}.ln1.g`, [d], 1);
      constant(`h${l}.ln1.b`, [d], 0);
      normal(`h${l}.attn.wqkv`, [d, 3 * d], 0.02);
      constant(`h${l}.attn.bqkv`, [3 * d], 0);
      normal(`h${l}.attn.wo`, [d, d], residualStd);
      constant(`h${l}.attn.bo`, [d], 0);
      constant(`h${l}.ln2.g`, [d], 1);
      constant(`h${l}.ln2.b`, [d], 0);
      normal(`h${l}.mlp.w1`, [d, f], 0.02);
      constant(`h${l}.mlp.b1`, [f], 0);
      normal(`h${l}.mlp.w2`, [f, d], residualStd);
      constant(`h${l}.mlp.b2`, [d], 0);
    }
    constant('lnf.g', [d], 1);
    constant('lnf.b', [d], 0);
    if (valueHead) {
      normal('value.w', [d, 1], 0.02);
      constant('value.b', [1], 0);
    }
    this.weights = weights;
  }

  private w(name: string): tf.Variable {
    return this.weights.get(name)!;
  }

  /**
   * Runs the blocks on `ids` [batch, time] at `positions` [batch, time]. `bias` [batch, 1, time,
   * past+time] is added to attention scores (0 = visible, MASKED = hidden); null means causal.
   * `past` holds the keys/values of earlier tokens (KV cache); `keepCache` returns the updated one.
   */
  run(
    ids: tf.Tensor2D,
    positions: tf.Tensor2D,
    bias: tf.Tensor | null,
    past?: LayerCache[],
    keepCache = false,
  ): RunResult {
    const { dModel: d, nHeads: h, nLayers } = this.config;
    const [batch, time] = ids.shape;
    const hd = d / h;
    const cache: LayerCache[] = [];
    let x = tf.add(
      tf.gather(this.w('wte'), tf.reshape(ids, [-1])),
      tf.gather(this.w('wpe'), tf.reshape(positions, [-1])),
    ) as tf.Tensor2D;
    const pastLength = past?.[0]?.k.shape[2] ?? 0;
    const attnBias = bias ?? causalBias(time);
    for (let l = 0; l < nLayers; l++) {
      const p = `h${l}`;
      const a = layerNorm(x, this.w(`${p}.ln1.g`), this.w(`${p}.ln1.b`));
      const qkv = tf.transpose(
        tf.reshape(tf.fused.matMul({ a, b: this.w(`${p}.attn.wqkv`), bias: this.w(`${p}.attn.bqkv`) }), [
          batch,
          time,
          3 * h,
          hd,
        ]),
        [0, 2, 1, 3],
      );
      // Scale q rather than the scores: [.., time, headDim] is smaller than [.., time, time].
      const q = tf.mul(tf.slice(qkv, [0, 0, 0, 0], [batch, h, time, hd]), 1 / Math.sqrt(hd)) as tf.Tensor4D;
      let k = tf.slice(qkv, [0, h, 0, 0], [batch, h, time, hd]) as tf.Tensor4D;
      let v = tf.slice(qkv, [0, 2 * h, 0, 0], [batch, h, time, hd]) as tf.Tensor4D;
      const layerPast = past?.[l];
      if (layerPast !== undefined && pastLength > 0) {
        k = tf.concat([layerPast.k, k], 2);
        v = tf.concat([layerPast.v, v], 2);
      }
      if (keepCache) cache.push({ k, v });
      const scores = tf.add(tf.matMul(q, k, false, true), attnBias);
      const attended = tf.reshape(tf.transpose(tf.matMul(tf.softmax(scores), v), [0, 2, 1, 3]), [
        batch * time,
        d,
      ]) as tf.Tensor2D;
      x = tf.add(
        x,
        tf.fused.matMul({ a: attended, b: this.w(`${p}.attn.wo`), bias: this.w(`${p}.attn.bo`) }),
      );
      const m = layerNorm(x, this.w(`${p}.ln2.g`), this.w(`${p}.ln2.b`));
      const hidden = gelu(
        tf.fused.matMul({ a: m, b: this.w(`${p}.mlp.w1`), bias: this.w(`${p}.mlp.b1`) }) as tf.Tensor2D,
      );
      x = tf.add(x, tf.fused.matMul({ a: hidden, b: this.w(`${p}.mlp.w2`), bias: this.w(`${p}.mlp.b2`) }));
    }
    return { hidden: layerNorm(x, this.w('lnf.g'), this.w('lnf.b')), cache };
  }

  /** What a loss moves: every weight (the value head's only when a loss asks for values). */
  get trainableWeights(): ReadonlyMap<string, tf.Variable> {
    return this.weights;
  }

  /** Next-token logits [rows, vocab] from hidden states [rows, dModel] (tied embedding). */
  logits(hidden: tf.Tensor2D): tf.Tensor2D {
    return tf.matMul(hidden, this.w('wte'), false, true);
  }

  /** Value-head estimates [rows] from hidden states; the model must have a value head. */
  values(hidden: tf.Tensor2D): tf.Tensor1D {
    return tf.reshape(tf.fused.matMul({ a: hidden, b: this.w('value.w'), bias: this.w('value.b') }), [-1]);
  }

  /**
   * Assigns `source`'s weights (by name, of the same shapes; extra names are ignored) to this
   * model's. `what` names the source in the error when one is missing or differs in shape.
   */
  assignWeights(source: ReadonlyMap<string, tf.Tensor>, what: string): void {
    const values = [...this.weights].map(
      ([name, variable]) => [variable, weightOfShape(source, name, variable.shape, what)] as const,
    );
    for (const [variable, value] of values) variable.assign(value);
  }

  dispose(): void {
    for (const variable of this.weights.values()) variable.dispose();
  }
}

/** `weights`' tensor called `name`, which must have `shape`. */
function weightOfShape(
  weights: ReadonlyMap<string, tf.Tensor>,
  name: string,
  shape: readonly number[],
  what: string,
): tf.Tensor {
  const tensor = weights.get(name);
  if (tensor === undefined || !tf.util.arraysEqual(tensor.shape, [...shape])) {
    throw new InvalidArgumentError(
      `${what} does not fit this model: its weight ${name} is ${tensor === undefined ? 'missing' : `of shape [${tensor.shape}], not [${shape}]`}; copy weights only between models of one config`,
    );
  }
  return tensor;
}

/** [1, 1, time, time] causal bias. */
function causalBias(time: number): tf.Tensor {
  const visible = tf.linalg.bandPart(tf.ones([time, time]), -1, 0);
  return tf.reshape(tf.mul(tf.sub(1, visible), MASKED), [1, 1, time, time]);
}

function layerNorm(x: tf.Tensor2D, gain: tf.Tensor, bias: tf.Tensor): tf.Tensor2D {
  const { mean, variance } = tf.moments(x, -1, true);
  return tf.add(tf.mul(tf.mul(tf.sub(x, mean), tf.rsqrt(tf.add(variance, 1e-5))), gain), bias);
}

// tanh-approximate GELU written as x·sigmoid(2z): the same function, but Sigmoid is a SIMD kernel
// on wasm while Tanh and Pow are scalar loops.
function gelu(x: tf.Tensor2D): tf.Tensor2D {
  const inner = tf.mul(tf.add(x, tf.mul(tf.mul(tf.mul(x, x), x), 0.044715)), 2 * Math.sqrt(2 / Math.PI));
  return tf.mul(x, tf.sigmoid(inner));
}

/**
 * log p(target) per row from logits [rows, vocab], with a hand-written gradient
 * (dy·(onehot − softmax)) that avoids the slow generic log-softmax gradient.
 */
export function targetLogprobs(logits: tf.Tensor2D, targets: tf.Tensor1D): tf.Tensor1D {
  const onehot = tf.cast(tf.oneHot(targets, logits.shape[1]), 'float32');
  const fn = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const lg = args[0] as tf.Tensor2D;
    const save = args[1] as tf.GradSaveFunc;
    // Saved tensors outlive the forward scope; a closed-over one would be disposed by then.
    save([lg, onehot]);
    return {
      value: tf.sub(tf.sum(tf.mul(lg, onehot), 1), tf.logSumExp(lg, 1)),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) =>
        tf.mul(tf.expandDims(dy, 1), tf.sub(saved[1]!, tf.softmax(saved[0]!))),
    };
  });
  return fn(logits) as tf.Tensor1D;
}

/** Entropy per row of the softmax of logits [rows, vocab]. */
export function rowEntropy(logits: tf.Tensor2D): tf.Tensor1D {
  const logp = tf.logSoftmax(logits);
  return tf.neg(tf.sum(tf.mul(tf.exp(logp), logp), 1)) as tf.Tensor1D;
}

/**
 * Runs `fn` in a tensor scope: every tensor it creates and does not `tf.keep` is disposed after.
 * Unlike tf.tidy it may return plain values (tidy would walk a large typed array element by element).
 */
export function inScope<T>(fn: () => T): T {
  tf.engine().startScope();
  try {
    return fn();
  } finally {
    tf.engine().endScope();
  }
}
