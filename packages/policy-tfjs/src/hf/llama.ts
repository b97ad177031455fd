// The Llama and Qwen3 decoders in raw tfjs ops, computed as transformers computes them in float32:
// RMSNorm, rotary positions (unscaled, rope_theta), grouped-query attention, SwiGLU MLP, Qwen3's
// per-head RMSNorm of queries and keys before the rotation, tied or untied output embedding, and a
// KV cache of the rotated keys and values for incremental decoding. Weights keep their Hugging Face
// names and [out, in] layouts, so they go back to safetensors as they came. LoRA adapters
// (`addLora`) add to the linear layers they target and freeze the rest; `supervisedStep` trains.
import { type AdamParams, InvalidArgumentError } from '@pilotrl/core';
import * as tf from '@tensorflow/tfjs-core';
import { AdamW } from '../adamw';
import { inScope } from '../model';
import type { HfDecoderConfig } from './hf-config';
import { LoraAdapters, type LoraOptions } from './lora';
import type { HfWeights } from './model-dir';
import {
  supervisedStep as runSupervisedStep,
  type SupervisedBatch,
  type SupervisedStepResult,
} from './supervised-step';

/** Additive attention bias value of hidden positions. */
const MASKED = -1e9;

/** Rotated keys and values of one layer before the heads are shared, [batch, kvHeads, time, headDim]. */
export interface HfLayerCache {
  k: tf.Tensor4D;
  v: tf.Tensor4D;
}

export interface HfRunResult {
  /** Final normalised hidden states, [batch·time, hidden]. */
  hidden: tf.Tensor2D;
  /** Keys and values including the new tokens (only when requested). */
  cache: HfLayerCache[];
}

export class HfDecoderModel {
  readonly config: HfDecoderConfig;
  /** The model's weights by Hugging Face name (frozen once LoRA adapters are added). */
  readonly weights: ReadonlyMap<string, tf.Variable>;
  /** The LoRA adapters, once `addLora` has added them. */
  private lora: LoraAdapters | undefined;
  private readonly optimizer = new AdamW();
  /** cos and sin of every position's rotation angles, [maxPositions, headDim] each. */
  private readonly cos: tf.Tensor2D;
  private readonly sin: tf.Tensor2D;

  constructor({ config, tensors }: HfWeights) {
    this.config = config;
    const weights = new Map<string, tf.Variable>();
    for (const [name, { shape, values }] of tensors) {
      weights.set(
        name,
        tf.tidy(() => tf.variable(tf.tensor(values, [...shape], 'float32'), true)),
      );
    }
    this.weights = weights;
    [this.cos, this.sin] = rotaryTables(config);
  }

  private w(name: string): tf.Variable {
    return this.weights.get(name)!;
  }

  /** x @ Wᵀ (+ b) for a Hugging Face linear layer `name` of weight [out, in], plus its LoRA adapter's output. */
  private linear(x: tf.Tensor2D, name: string): tf.Tensor2D {
    const bias = this.weights.get(`${name}.bias`);
    const base = tf.fused.matMul({
      a: x,
      b: this.w(`${name}.weight`),
      transposeB: true,
      bias,
    }) as tf.Tensor2D;
    return this.lora === undefined ? base : this.lora.add(name, x, base);
  }

  /**
   * Adds LoRA adapters to the `targetModules` of every block and freezes every other weight, so
   * `supervisedStep` trains the adapters only. Refuses unknown modules, a rank below 1, and a
   * second call.
   */
  addLora(options: LoraOptions): void {
    if (this.lora !== undefined) {
      throw new InvalidArgumentError(
        'this model already has LoRA adapters; add them once, with every target module',
      );
    }
    this.lora = new LoraAdapters(this.config, options, (layer) => this.w(`${layer}.weight`).shape);
    for (const variable of this.weights.values()) variable.trainable = false;
  }

  /** What `supervisedStep` trains: the LoRA adapters when there are any, every weight otherwise. */
  get trainableWeights(): ReadonlyMap<string, tf.Variable> {
    return this.lora?.weights ?? this.weights;
  }

  /**
   * One supervised step on `batch`: the mean next-token cross-entropy over the tokens `lossMask`
   * marks 1 (transformers' causal LM loss with labels -100 elsewhere), then one AdamW step (the
   * package's, decaying matrices only) with `adam` on `trainableWeights`. Returns the loss before
   * the step. The optimizer's moments persist between calls, as in one training run.
   */
  supervisedStep(batch: SupervisedBatch, adam: AdamParams): Promise<SupervisedStepResult> {
    return runSupervisedStep(this, this.trainableWeights, this.optimizer, batch, adam);
  }

  /**
   * Runs the blocks on `ids` [batch, time] at `positions` [batch, time]. `bias` [batch, 1, time,
   * past+time] is added to attention scores (0 = visible, -1e9 = hidden); null means causal after
   * the past. `past` holds earlier tokens' keys and values; `keepCache` returns the updated ones.
   */
  run(
    ids: tf.Tensor2D,
    positions: tf.Tensor2D,
    bias: tf.Tensor | null,
    past?: readonly HfLayerCache[],
    keepCache = false,
  ): HfRunResult {
    const { numLayers, numHeads, numKvHeads, headDim, hiddenSize, rmsNormEps: eps } = this.config;
    const [batch, time] = ids.shape;
    const pastLength = past?.[0]?.k.shape[2] ?? 0;
    const attnBias = bias ?? causalBias(time, pastLength);
    // [batch, 1, time, headDim]: broadcast over heads.
    const flatPositions = tf.reshape(positions, [-1]);
    const cos = tf.reshape(tf.gather(this.cos, flatPositions), [batch, 1, time, headDim]);
    const sin = tf.reshape(tf.gather(this.sin, flatPositions), [batch, 1, time, headDim]);
    const heads = (x: tf.Tensor2D, count: number, norm: string | undefined) => {
      let h: tf.Tensor = tf.reshape(x, [batch, time, count, headDim]);
      if (norm !== undefined) h = rmsNorm(h, this.w(norm), eps);
      return rotate(tf.transpose(h, [0, 2, 1, 3]) as tf.Tensor4D, cos, sin);
    };
    const cache: HfLayerCache[] = [];
    let x = tf.gather(this.w('model.embed_tokens.weight'), tf.reshape(ids, [-1])) as tf.Tensor2D;
    for (let l = 0; l < numLayers; l++) {
      const p = `model.layers.${l}`;
      const a = rmsNorm(x, this.w(`${p}.input_layernorm.weight`), eps);
      const qkNorm = this.config.qkNorm;
      const q = heads(
        this.linear(a, `${p}.self_attn.q_proj`),
        numHeads,
        qkNorm ? `${p}.self_attn.q_norm.weight` : undefined,
      );
      let k = heads(
        this.linear(a, `${p}.self_attn.k_proj`),
        numKvHeads,
        qkNorm ? `${p}.self_attn.k_norm.weight` : undefined,
      );
      let v = tf.transpose(
        tf.reshape(this.linear(a, `${p}.self_attn.v_proj`), [batch, time, numKvHeads, headDim]),
        [0, 2, 1, 3],
      ) as tf.Tensor4D;
      const layerPast = past?.[l];
      if (layerPast !== undefined && pastLength > 0) {
        k = tf.concat([layerPast.k, k], 2);
        v = tf.concat([layerPast.v, v], 2);
      }
      if (keepCache) cache.push({ k, v });
      const scores = tf.add(
        tf.matMul(tf.mul(q, 1 / Math.sqrt(headDim)), shareHeads(k, numHeads / numKvHeads), false, true),
        attnBias,
      );
      const attended = tf.reshape(
        tf.transpose(tf.matMul(tf.softmax(scores), shareHeads(v, numHeads / numKvHeads)), [0, 2, 1, 3]),
        [batch * time, numHeads * headDim],
      ) as tf.Tensor2D;
      x = tf.add(x, this.linear(attended, `${p}.self_attn.o_proj`));
      const m = rmsNorm(x, this.w(`${p}.post_attention_layernorm.weight`), eps);
      const gate = this.linear(m, `${p}.mlp.gate_proj`);
      const swish = tf.mul(tf.mul(gate, tf.sigmoid(gate)), this.linear(m, `${p}.mlp.up_proj`)) as tf.Tensor2D;
      x = tf.add(x, this.linear(swish, `${p}.mlp.down_proj`));
    }
    const hidden = tf.reshape(rmsNorm(x, this.w('model.norm.weight'), eps), [
      batch * time,
      hiddenSize,
    ]) as tf.Tensor2D;
    return { hidden, cache };
  }

  /** Next-token logits [rows, vocab] from hidden states [rows, hidden]. */
  logits(hidden: tf.Tensor2D): tf.Tensor2D {
    const head = this.config.tieWordEmbeddings ? 'model.embed_tokens.weight' : 'lm_head.weight';
    return tf.matMul(hidden, this.w(head), false, true);
  }

  /** Logits [batch, time, vocab] of every position of `ids` [batch][time] (equal lengths), from position 0. */
  forward(ids: readonly (readonly number[])[]): tf.Tensor3D {
    return tf.tidy(() => {
      const time = ids[0]?.length ?? 0;
      const idTensor = tf.tensor2d(
        ids.map((row) => [...row]),
        [ids.length, time],
        'int32',
      );
      const positions = tf.tile(tf.range(0, time, 1, 'int32').expandDims(0), [ids.length, 1]) as tf.Tensor2D;
      const { hidden } = this.run(idTensor, positions, null);
      return tf.reshape(this.logits(hidden), [ids.length, time, this.config.vocabSize]) as tf.Tensor3D;
    });
  }

  /** `forward`'s logits read out: [batch × time × vocab] values, row-major; no tensor is left behind. */
  async logitsOf(ids: readonly (readonly number[])[]): Promise<Float32Array> {
    const logits = this.forward(ids);
    try {
      return (await logits.data()) as Float32Array;
    } finally {
      logits.dispose();
    }
  }

  /**
   * Greedy decoding of one prompt with the KV cache: up to `maxTokens` new ids, stopping after
   * the first of `stopIds` (default: the config's eos ids), which is included.
   */
  async greedy(
    prompt: readonly number[],
    maxTokens: number,
    stopIds = this.config.eosTokenIds,
  ): Promise<number[]> {
    const out: number[] = [];
    let cache: HfLayerCache[] = [];
    let input = [...prompt];
    let position = 0;
    try {
      while (out.length < maxTokens && position + input.length <= this.config.maxPositions) {
        const start = position;
        const step = inScope(() => {
          const ids = tf.tensor2d([input], [1, input.length], 'int32');
          const positions = tf.range(start, start + input.length, 1, 'int32').expandDims(0) as tf.Tensor2D;
          const result = this.run(ids, positions, null, cache, true);
          const last = tf.slice(result.hidden, [input.length - 1, 0], [1, this.config.hiddenSize]);
          for (const layer of result.cache) {
            tf.keep(layer.k);
            tf.keep(layer.v);
          }
          return { next: tf.keep(tf.argMax(this.logits(last), 1)), cache: result.cache };
        });
        for (const layer of cache) tf.dispose([layer.k, layer.v]);
        cache = step.cache;
        const [next] = await step.next.data();
        step.next.dispose();
        position += input.length;
        out.push(next!);
        if (stopIds.includes(next!)) break;
        input = [next!];
      }
    } finally {
      for (const layer of cache) tf.dispose([layer.k, layer.v]);
    }
    return out;
  }

  dispose(): void {
    for (const variable of this.weights.values()) variable.dispose();
    this.lora?.dispose();
    this.optimizer.dispose();
    tf.dispose([this.cos, this.sin]);
  }
}

/**
 * cos and sin tables of the rotation angles position·θ^(-2i/headDim), both halves of the head
 * repeated, rounded through float32 at each step as transformers computes them.
 */
function rotaryTables(config: HfDecoderConfig): [tf.Tensor2D, tf.Tensor2D] {
  const { headDim, ropeTheta, maxPositions } = config;
  const half = headDim / 2;
  const inverse = Array.from({ length: half }, (_, i) =>
    Math.fround(1 / Math.fround(ropeTheta ** Math.fround((2 * i) / headDim))),
  );
  const cos = new Float32Array(maxPositions * headDim);
  const sin = new Float32Array(maxPositions * headDim);
  for (let p = 0; p < maxPositions; p++) {
    for (let i = 0; i < half; i++) {
      const angle = Math.fround(p * inverse[i]!);
      const row = p * headDim;
      cos[row + i] = cos[row + i + half] = Math.cos(angle);
      sin[row + i] = sin[row + i + half] = Math.sin(angle);
    }
  }
  return [tf.tensor2d(cos, [maxPositions, headDim]), tf.tensor2d(sin, [maxPositions, headDim])];
}

/** x·cos + rotate_half(x)·sin, where rotate_half(x) = [-x₂, x₁] over the head's two halves. */
function rotate(x: tf.Tensor4D, cos: tf.Tensor, sin: tf.Tensor): tf.Tensor4D {
  const [b, h, t, d] = x.shape;
  const first = tf.slice(x, [0, 0, 0, 0], [b, h, t, d / 2]);
  const second = tf.slice(x, [0, 0, 0, d / 2], [b, h, t, d / 2]);
  const rotated = tf.concat([tf.neg(second), first], 3);
  return tf.add(tf.mul(x, cos), tf.mul(rotated, sin));
}

/** Each key-value head repeated for the `groups` query heads that share it: [b, kv, t, d] → [b, kv·groups, t, d]. */
function shareHeads(x: tf.Tensor4D, groups: number): tf.Tensor4D {
  if (groups === 1) return x;
  const [b, kv, t, d] = x.shape;
  // Rank 4 (time and head dimension folded together): tfjs has no gradient of a rank-5 tile.
  return tf.reshape(tf.tile(tf.reshape(x, [b, kv, 1, t * d]), [1, 1, groups, 1]), [b, kv * groups, t, d]);
}

function rmsNorm<T extends tf.Tensor>(x: T, weight: tf.Tensor, eps: number): T {
  return tf.mul(tf.mul(x, tf.rsqrt(tf.add(tf.mean(tf.square(x), -1, true), eps))), weight);
}

/** [1, 1, time, past+time]: a query sees every past key and the new ones up to itself. */
function causalBias(time: number, past: number): tf.Tensor {
  const visible = tf.linalg.bandPart(tf.ones([time, past + time]), -1, past);
  return tf.reshape(tf.mul(tf.sub(1, visible), MASKED), [1, 1, time, past + time]);
}
