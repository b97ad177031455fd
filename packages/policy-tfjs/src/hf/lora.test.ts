// LoRA adapters and the supervised step of the Hugging Face decoder, with random weights from a
// fixed seed (their equality with PEFT and transformers is hf-lora.engine.test.ts's): a fresh
// adapter changes no logit, an adapter adds (alpha/rank)·B·A to its layer's weight, the loss is the
// mean masked next-token cross-entropy, steps lower it, LoRA steps leave every base weight as it was,
// and bad options and batches are refused.
import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../backend';
import { HfDecoderModel } from './llama';
import { LORA_TARGET_MODULES, type LoraOptions } from './lora';
import { randomHfWeights, tinyQwen3Config } from './random-hf-weights.testing';

const llamaConfig = { ...tinyQwen3Config, modelType: 'llama' as const, qkNorm: false, attentionBias: true };
const rows = [
  [3, 14, 15, 9, 26, 5, 35, 8, 9, 7],
  [2, 7, 18, 28, 18],
];
// The first row's prompt (four tokens) is not trained on; the second row is, whole.
const lossMask = [
  [0, 0, 0, 0, 1, 1, 1, 1, 1, 1],
  [1, 1, 1, 1, 1],
];
const allModules = { rank: 4, alpha: 8, targetModules: [...LORA_TARGET_MODULES], seed: 1 };

async function logitsOf(model: HfDecoderModel, ids: number[][]): Promise<number[]> {
  return Array.from(await model.logitsOf(ids));
}

function snapshot(weights: ReadonlyMap<string, tf.Variable>): Map<string, Float32Array> {
  return new Map([...weights].map(([name, variable]) => [name, variable.dataSync() as Float32Array]));
}

const maxAbsDifference = (a: readonly number[], b: readonly number[]) => {
  expect(a.length).toBe(b.length);
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i]! - b[i]!));
  return max;
};

describe('LoRA adapters on HfDecoderModel', () => {
  beforeAll(async () => {
    await initBackend();
  });

  it('leaves every logit bit-identical while B is zero', async () => {
    const model = new HfDecoderModel(randomHfWeights(llamaConfig));
    const before = await logitsOf(model, [rows[0]!]);
    model.addLora(allModules);
    expect(await logitsOf(model, [rows[0]!])).toEqual(before);
    model.dispose();
  });

  it('draws A within ±1/√in from the seed and starts B at zero, for every target layer of every block', () => {
    const a = new HfDecoderModel(randomHfWeights(tinyQwen3Config));
    const b = new HfDecoderModel(randomHfWeights(tinyQwen3Config));
    const c = new HfDecoderModel(randomHfWeights(tinyQwen3Config));
    a.addLora({ ...allModules, targetModules: ['q_proj', 'down_proj'] });
    b.addLora({ ...allModules, targetModules: ['q_proj', 'down_proj'] });
    c.addLora({ ...allModules, targetModules: ['q_proj', 'down_proj'], seed: 2 });
    expect([...a.trainableWeights.keys()]).toEqual([
      'model.layers.0.self_attn.q_proj.lora_A.weight',
      'model.layers.0.self_attn.q_proj.lora_B.weight',
      'model.layers.0.mlp.down_proj.lora_A.weight',
      'model.layers.0.mlp.down_proj.lora_B.weight',
      'model.layers.1.self_attn.q_proj.lora_A.weight',
      'model.layers.1.self_attn.q_proj.lora_B.weight',
      'model.layers.1.mlp.down_proj.lora_A.weight',
      'model.layers.1.mlp.down_proj.lora_B.weight',
    ]);
    const downA = a.trainableWeights.get('model.layers.1.mlp.down_proj.lora_A.weight')!;
    expect(downA.shape).toEqual([4, tinyQwen3Config.intermediateSize]);
    const bound = 1 / Math.sqrt(tinyQwen3Config.intermediateSize);
    const values = Array.from(downA.dataSync());
    expect(Math.max(...values.map(Math.abs))).toBeLessThanOrEqual(bound);
    expect(Math.max(...values.map(Math.abs))).toBeGreaterThan(0.8 * bound);
    const qB = a.trainableWeights.get('model.layers.0.self_attn.q_proj.lora_B.weight')!;
    expect(qB.shape).toEqual([tinyQwen3Config.numHeads * tinyQwen3Config.headDim, 4]);
    expect(Array.from(qB.dataSync()).every((v) => v === 0)).toBe(true);
    const first = snapshot(a.trainableWeights);
    expect(snapshot(b.trainableWeights)).toEqual(first);
    expect(snapshot(c.trainableWeights)).not.toEqual(first);
    for (const model of [a, b, c]) model.dispose();
  });

  it('adds (alpha/rank)·B·A to the weight of each layer it adapts', async () => {
    const weights = randomHfWeights(llamaConfig);
    const adapted = new HfDecoderModel(weights);
    adapted.addLora({ rank: 3, alpha: 5, targetModules: ['v_proj', 'o_proj', 'up_proj'], seed: 4 });
    // B random (as after training), then the same layers with the product merged into W.
    let s = 0;
    for (const [name, variable] of adapted.trainableWeights) {
      if (name.endsWith('lora_B.weight')) {
        variable.assign(
          tf.tidy(() => tf.mul(tf.sin(tf.add(tf.range(0, variable.size), ++s)), 0.5).reshape(variable.shape)),
        );
      }
    }
    const merged = new Map(weights.tensors);
    for (const [name, variable] of adapted.trainableWeights) {
      if (!name.endsWith('lora_A.weight')) continue;
      const layer = name.slice(0, -'.lora_A.weight'.length);
      const b = adapted.trainableWeights.get(`${layer}.lora_B.weight`)!;
      const { shape, values } = weights.tensors.get(`${layer}.weight`)!;
      const delta = tf.tidy(() => tf.mul(tf.matMul(b, variable), 5 / 3).dataSync());
      merged.set(`${layer}.weight`, { shape, values: values.map((v, i) => v + delta[i]!) });
    }
    const plain = new HfDecoderModel({ config: llamaConfig, tensors: merged });
    const ours = await logitsOf(adapted, rows.slice(0, 1));
    expect(maxAbsDifference(ours, await logitsOf(plain, rows.slice(0, 1)))).toBeLessThan(1e-4);
    expect(
      maxAbsDifference(ours, await logitsOf(new HfDecoderModel(weights), rows.slice(0, 1))),
    ).toBeGreaterThan(0.1);
    adapted.dispose();
    plain.dispose();
  });
});

describe('HfDecoderModel.supervisedStep', () => {
  beforeAll(async () => {
    await initBackend();
  });

  it('returns the mean next-token cross-entropy over the masked-in tokens, before the step', async () => {
    const model = new HfDecoderModel(randomHfWeights(tinyQwen3Config));
    const { vocabSize } = tinyQwen3Config;
    let sum = 0;
    let count = 0;
    for (const [r, row] of rows.entries()) {
      const logits = await logitsOf(model, [row]);
      for (let t = 1; t < row.length; t++) {
        if (lossMask[r]![t] === 0) continue;
        const scores = logits.slice((t - 1) * vocabSize, t * vocabSize);
        const top = Math.max(...scores);
        const logSum = top + Math.log(scores.reduce((acc, v) => acc + Math.exp(v - top), 0));
        sum += logSum - scores[row[t]!]!;
        count += 1;
      }
    }
    const result = await model.supervisedStep({ ids: rows, lossMask }, { learningRate: 1e-2 });
    expect(result.targetTokens).toBe(count);
    expect(result.loss).toBeCloseTo(sum / count, 5);
    model.dispose();
  });

  for (const lora of [true, false]) {
    it(`lowers the loss step after step on a repeated batch (${lora ? 'LoRA' : 'every weight'})`, async () => {
      const model = new HfDecoderModel(randomHfWeights(tinyQwen3Config));
      if (lora) model.addLora(allModules);
      const losses: number[] = [];
      for (let step = 0; step < 6; step++) {
        losses.push((await model.supervisedStep({ ids: rows, lossMask }, { learningRate: 1e-2 })).loss);
      }
      for (let step = 1; step < losses.length; step++) expect(losses[step]).toBeLessThan(losses[step - 1]!);
      expect(losses.at(-1)).toBeLessThan(0.9 * losses[0]!);
      model.dispose();
    });
  }

  it('with LoRA, changes A and B only: every base weight stays bit-identical', async () => {
    const model = new HfDecoderModel(randomHfWeights(llamaConfig));
    model.addLora({ ...allModules, targetModules: ['q_proj', 'v_proj', 'gate_proj'] });
    const base = snapshot(model.weights);
    const adapters = snapshot(model.trainableWeights);
    // B moves on the first step; A only once B is no longer zero.
    for (let step = 0; step < 2; step++) {
      await model.supervisedStep({ ids: rows, lossMask }, { learningRate: 1e-2, weightDecay: 0.1 });
    }
    expect(snapshot(model.weights)).toEqual(base);
    expect([...model.weights.values()].filter((variable) => variable.trainable)).toEqual([]);
    for (const [name, values] of snapshot(model.trainableWeights)) {
      expect(maxAbsDifference(Array.from(values), Array.from(adapters.get(name)!)), name).toBeGreaterThan(
        1e-4,
      );
    }
    model.dispose();
  });

  it('leaves no tensor behind', async () => {
    const model = new HfDecoderModel(randomHfWeights(tinyQwen3Config));
    model.addLora(allModules);
    await model.supervisedStep({ ids: rows, lossMask }, { learningRate: 1e-2 });
    const tensors = tf.memory().numTensors;
    await model.supervisedStep({ ids: rows, lossMask }, { learningRate: 1e-2 });
    expect(tf.memory().numTensors).toBe(tensors);
    model.dispose();
  });
});

describe('refusals', () => {
  beforeAll(async () => {
    await initBackend();
  });

  const refusal = (options: LoraOptions) => {
    const model = new HfDecoderModel(randomHfWeights(tinyQwen3Config));
    try {
      model.addLora(options);
      return 'accepted';
    } catch (error) {
      return (error as Error).message;
    } finally {
      model.dispose();
    }
  };

  it('refuses an unknown target module, naming it and listing the valid ones', () => {
    expect(refusal({ ...allModules, targetModules: ['q_proj', 'qkv_proj'] })).toBe(
      "LoRA target module 'qkv_proj' is not a linear layer of a Llama or Qwen3 block; valid ones are q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj",
    );
  });

  it('refuses a rank below 1, a fractional rank, dropout, no target module and unknown options', () => {
    expect(refusal({ ...allModules, rank: 0 })).toMatch(/^Invalid LoRA options:\n {2}rank: /);
    expect(refusal({ ...allModules, rank: -2 })).toMatch(/^Invalid LoRA options:\n {2}rank: /);
    expect(refusal({ ...allModules, rank: 1.5 })).toMatch(/^Invalid LoRA options:\n {2}rank: /);
    expect(refusal({ ...allModules, dropout: 0.1 } as unknown as LoraOptions)).toMatch(/\n {2}dropout: /);
    expect(refusal({ ...allModules, targetModules: [] })).toMatch(/\n {2}targetModules: /);
    expect(refusal({ ...allModules, bias: 'all' } as unknown as LoraOptions)).toMatch(/bias/);
  });

  it('refuses adapters added twice', () => {
    const model = new HfDecoderModel(randomHfWeights(tinyQwen3Config));
    model.addLora(allModules);
    expect(() => model.addLora(allModules)).toThrow('this model already has LoRA adapters');
    model.dispose();
  });

  it('refuses a batch whose mask does not line up, whose ids leave the vocabulary, or with nothing to predict', async () => {
    const model = new HfDecoderModel(randomHfWeights(tinyQwen3Config));
    const adam = { learningRate: 1e-2 };
    await expect(model.supervisedStep({ ids: rows, lossMask: [lossMask[0]!] }, adam)).rejects.toThrow(
      'supervised batch: lossMask has 1 rows but ids has 2; give one mask row per id row',
    );
    await expect(model.supervisedStep({ ids: rows, lossMask: [lossMask[0]!, [1, 1]] }, adam)).rejects.toThrow(
      'supervised batch: lossMask[1] has 2 entries but ids[1] has 5 tokens',
    );
    await expect(model.supervisedStep({ ids: [[1, 2, 50]], lossMask: [[1, 1, 1]] }, adam)).rejects.toThrow(
      "supervised batch: ids[0][2] is 50, past the model's vocabulary of 50",
    );
    await expect(model.supervisedStep({ ids: [[1, 2, 3]], lossMask: [[1, 0, 0]] }, adam)).rejects.toThrow(
      'nothing to predict',
    );
    await expect(model.supervisedStep({ ids: rows, lossMask }, { learningRate: 0 })).rejects.toThrow(
      /^Invalid AdamW parameters:\n {2}learningRate: /,
    );
    model.dispose();
  });
});
