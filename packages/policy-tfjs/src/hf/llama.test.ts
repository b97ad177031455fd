// The Hugging Face decoder's own consistency, with random weights from a fixed seed (its equality
// with transformers is hf-models.engine.test.ts's): decoding with the KV cache gives the logits of
// a full pass, grouped-query attention equals full attention with each key-value head copied, the
// logits come from lm_head when untied, and batch rows do not mix.
import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { initBackend } from '../backend';
import { HfDecoderModel } from './llama';
import { tinyQwen3Config as base, randomHfWeights as randomWeights } from './random-hf-weights.testing';

async function logitsOf(model: HfDecoderModel, rows: number[][]): Promise<number[]> {
  const logits = model.forward(rows);
  const values = Array.from(await logits.data());
  logits.dispose();
  return values;
}

const maxAbsDifference = (a: readonly number[], b: readonly number[]) => {
  expect(a.length).toBe(b.length);
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i]! - b[i]!));
  return max;
};

const ids = [3, 14, 15, 9, 26, 5, 35, 8, 9, 7];

describe('HfDecoderModel', () => {
  beforeAll(async () => {
    await initBackend();
  });

  it('gives the same logits decoding with the KV cache as in one full pass', async () => {
    const model = new HfDecoderModel(randomWeights(base));
    const full = await logitsOf(model, [ids]);
    const split = 6;
    const cached = tf.tidy(() => {
      const positions = (from: number, to: number) =>
        tf.range(from, to, 1, 'int32').expandDims(0) as tf.Tensor2D;
      const first = model.run(
        tf.tensor2d([ids.slice(0, split)], undefined, 'int32'),
        positions(0, split),
        null,
        [],
        true,
      );
      // The rest one token at a time, each step extending the cache.
      let cache = first.cache;
      const rows: tf.Tensor2D[] = [model.logits(first.hidden)];
      for (let t = split; t < ids.length; t++) {
        const step = model.run(
          tf.tensor2d([[ids[t]!]], undefined, 'int32'),
          positions(t, t + 1),
          null,
          cache,
          true,
        );
        cache = step.cache;
        rows.push(model.logits(step.hidden));
      }
      return tf.concat(rows, 0);
    });
    const incremental = Array.from(await cached.data());
    cached.dispose();
    expect(maxAbsDifference(incremental, full)).toBeLessThan(1e-5);
    model.dispose();
  });

  it('equals full attention with each key-value head copied for the query heads that share it', async () => {
    const grouped = randomWeights(base);
    const groups = base.numHeads / base.numKvHeads;
    const full = new Map(grouped.tensors);
    for (let l = 0; l < base.numLayers; l++) {
      for (const proj of ['k_proj', 'v_proj']) {
        const name = `model.layers.${l}.self_attn.${proj}.weight`;
        const { values } = grouped.tensors.get(name)!;
        const rowsPerHead = base.headDim * base.hiddenSize;
        const copied = new Float32Array(values.length * groups);
        for (let kv = 0; kv < base.numKvHeads; kv++) {
          for (let g = 0; g < groups; g++) {
            const head = values.subarray(kv * rowsPerHead, (kv + 1) * rowsPerHead);
            copied.set(head, (kv * groups + g) * rowsPerHead);
          }
        }
        full.set(name, { shape: [base.numHeads * base.headDim, base.hiddenSize], values: copied });
      }
    }
    const a = new HfDecoderModel(grouped);
    const b = new HfDecoderModel({ config: { ...base, numKvHeads: base.numHeads }, tensors: full });
    expect(maxAbsDifference(await logitsOf(a, [ids]), await logitsOf(b, [ids]))).toBeLessThan(1e-5);
    a.dispose();
    b.dispose();
  });

  it('takes the logits from lm_head when untied and from the embedding when tied', async () => {
    const tied = randomWeights(base);
    const embedding = tied.tensors.get('model.embed_tokens.weight')!;
    // The output head twice the embedding: every logit doubles, so only the head that is used can give that.
    const untied = new Map(tied.tensors);
    untied.set('lm_head.weight', { shape: embedding.shape, values: embedding.values.map((v) => 2 * v) });
    const a = new HfDecoderModel(tied);
    const b = new HfDecoderModel({ config: { ...base, tieWordEmbeddings: false }, tensors: untied });
    const doubled = (await logitsOf(a, [ids])).map((v) => 2 * v);
    expect(maxAbsDifference(await logitsOf(b, [ids]), doubled)).toBeLessThan(1e-5);
    a.dispose();
    b.dispose();
  });

  it('scores each row of a batch as it scores that row alone', async () => {
    const model = new HfDecoderModel(
      randomWeights({ ...base, modelType: 'llama', qkNorm: false, attentionBias: true }),
    );
    const other = [...ids].reverse();
    const batch = await logitsOf(model, [ids, other]);
    const alone = [...(await logitsOf(model, [ids])), ...(await logitsOf(model, [other]))];
    expect(maxAbsDifference(batch, alone)).toBeLessThan(1e-5);
    model.dispose();
  });
});
