// LoRA adapters on the linear layers of the Hugging Face decoder, computed as PEFT computes them: a
// target layer of weight W [out, in] gives x·Wᵀ + (alpha/rank)·(x·Aᵀ)·Bᵀ, with A [rank, in] drawn
// uniformly in ±1/√in (PEFT's default, a Kaiming-uniform draw with a = √5) and B [out, rank] zero, so
// a fresh adapter leaves every output as it was. Adapter weights are named `<layer>.lora_A.weight`
// and `<layer>.lora_B.weight` after the layer they adapt (`model.layers.0.self_attn.q_proj`).
import { createRng, InvalidArgumentError, parseOrThrow } from '@pilotrl/core';
import * as tf from '@tensorflow/tfjs-core';
import { z } from 'zod';
import type { HfDecoderConfig } from './hf-config';

/** The part of a block that holds each linear layer an adapter can target, in block order. */
const MODULE_PARTS = {
  q_proj: 'self_attn',
  k_proj: 'self_attn',
  v_proj: 'self_attn',
  o_proj: 'self_attn',
  gate_proj: 'mlp',
  up_proj: 'mlp',
  down_proj: 'mlp',
} as const;

/** The linear layers of a Llama or Qwen3 block that an adapter can target, in block order. */
export const LORA_TARGET_MODULES = Object.keys(MODULE_PARTS) as readonly (keyof typeof MODULE_PARTS)[];

export const loraOptionsSchema = z
  .object({
    /** Inner dimension of A and B. */
    rank: z.number().int().positive(),
    /** Scale numerator: the adapter's output is multiplied by alpha/rank. */
    alpha: z.number().positive(),
    /** Layer names of every block to adapt, from `LORA_TARGET_MODULES`. */
    targetModules: z.array(z.string()).min(1),
    /** Dropout on the adapter's input; only 0 is implemented. */
    dropout: z.literal(0).default(0),
    /** Seed of A's initial draw. */
    seed: z.number().int().default(0),
  })
  .strict();
export type LoraOptions = z.input<typeof loraOptionsSchema>;

/** A and B of one adapted layer, and the scale alpha/rank. */
interface Adapter {
  a: tf.Variable;
  b: tf.Variable;
}

export class LoraAdapters {
  readonly scale: number;
  /** Adapter weights by name (`<layer>.lora_A.weight`, `<layer>.lora_B.weight`). */
  readonly weights: ReadonlyMap<string, tf.Variable>;
  private readonly byLayer = new Map<string, Adapter>();

  /**
   * Adapters on the `targetModules` of every block of a decoder with `config`; `shapeOf` gives
   * the [out, in] shape of a layer's weight.
   */
  constructor(config: HfDecoderConfig, options: LoraOptions, shapeOf: (layer: string) => readonly number[]) {
    const { rank, alpha, targetModules, seed } = parseOrThrow(loraOptionsSchema, options, 'LoRA options');
    const valid: readonly string[] = LORA_TARGET_MODULES;
    for (const module of targetModules) {
      if (!valid.includes(module)) {
        throw new InvalidArgumentError(
          `LoRA target module '${module}' is not a linear layer of a Llama or Qwen3 block; valid ones are ${LORA_TARGET_MODULES.join(', ')}`,
        );
      }
    }
    this.scale = alpha / rank;
    const rng = createRng(seed);
    const weights = new Map<string, tf.Variable>();
    for (let l = 0; l < config.numLayers; l++) {
      for (const module of LORA_TARGET_MODULES) {
        if (!targetModules.includes(module)) continue;
        const layer = `model.layers.${l}.${MODULE_PARTS[module]}.${module}`;
        const [out, inputs] = shapeOf(layer) as [number, number];
        const bound = 1 / Math.sqrt(inputs);
        const initial = new Float32Array(rank * inputs);
        for (let i = 0; i < initial.length; i++) initial[i] = (2 * rng.float() - 1) * bound;
        const adapter = tf.tidy(() => ({
          a: tf.variable(tf.tensor2d(initial, [rank, inputs]), true),
          b: tf.variable(tf.zeros([out, rank]), true),
        }));
        this.byLayer.set(layer, adapter);
        weights.set(`${layer}.lora_A.weight`, adapter.a);
        weights.set(`${layer}.lora_B.weight`, adapter.b);
      }
    }
    this.weights = weights;
  }

  /** `base` (x·Wᵀ of `layer`) plus the layer's adapter output on `x`; `base` itself when not adapted. */
  add(layer: string, x: tf.Tensor2D, base: tf.Tensor2D): tf.Tensor2D {
    const adapter = this.byLayer.get(layer);
    if (adapter === undefined) return base;
    const low = tf.matMul(x, adapter.a, false, true);
    return tf.add(base, tf.mul(tf.matMul(low, adapter.b, false, true), this.scale));
  }

  dispose(): void {
    tf.dispose([...this.weights.values()]);
  }
}
