// The wasm kernel overrides must compute what the stock kernels compute (to float32 rounding).
import * as tf from '@tensorflow/tfjs-core';
import { describe, expect, it } from 'vitest';
import { initBackend } from './backend';
import { TransformerModel, targetLogprobs } from './model';

const random = (shape: number[], seed: number) => tf.randomNormal(shape, 0, 1, 'float32', seed);

/** Runs `compute` with the stock wasm kernels and with the overrides; returns both results. */
async function stockAndOverride(
  compute: () => tf.Tensor | tf.Tensor[],
): Promise<[Float32Array[], Float32Array[]]> {
  const read = () =>
    tf.tidy(() => {
      const out = compute();
      return Array.isArray(out) ? out : [out];
    });
  await initBackend({ backend: 'wasm', wasmOverrides: false });
  const stockTensors = read();
  const stock = stockTensors.map((t) => t.dataSync() as Float32Array);
  tf.dispose(stockTensors);
  const info = await initBackend({ backend: 'wasm' });
  expect(info.overrides).toContain('BatchMatMul');
  const overriddenTensors = read();
  const overridden = overriddenTensors.map((t) => t.dataSync() as Float32Array);
  tf.dispose(overriddenTensors);
  return [stock, overridden];
}

function expectClose(a: Float32Array[], b: Float32Array[], relative: number) {
  expect(a.length).toBe(b.length);
  a.forEach((x, i) => {
    const y = b[i]!;
    expect(y.length).toBe(x.length);
    let diff = 0;
    let norm = 0;
    for (let j = 0; j < x.length; j++) {
      diff += (x[j]! - y[j]!) ** 2;
      norm += x[j]! ** 2;
    }
    expect(Math.sqrt(diff)).toBeLessThanOrEqual(relative * Math.sqrt(norm) + 1e-12);
  });
}

describe('wasm kernel overrides', () => {
  it('match stock matmuls with transposes, batches and fused bias', async () => {
    const [stock, overridden] = await stockAndOverride(() => {
      const a = random([64, 32], 1);
      const b = random([64, 48], 2);
      const w = random([32, 48], 3);
      const q = random([2, 3, 20, 16], 4);
      const k = random([2, 3, 20, 16], 5);
      const x3 = random([4, 10, 32], 6);
      return [
        tf.matMul(a, b, true, false),
        tf.matMul(b, w, false, true),
        tf.matMul(a, w),
        tf.matMul(x3, w),
        tf.matMul(q, k, false, true),
        tf.matMul(q, k, true, false),
        tf.fused.matMul({ a, b: w, bias: random([48], 7), activation: 'relu' }),
        tf.matMul(random([5, 1, 8], 8), random([5, 8, 8], 9)),
      ];
    });
    expectClose(stock, overridden, 1e-5);
  });

  it('match stock Sum, Slice, GatherV2, Identity and Cast', async () => {
    const [stock, overridden] = await stockAndOverride(() => {
      const x = random([6, 5, 4], 10);
      return [
        tf.sum(x, 0),
        tf.sum(x, [0, 1], true),
        tf.sum(x, 2),
        tf.slice(x, [1, 2, 0], [3, 2, 4]),
        tf.slice(x, [0, 1, 1], [6, 3, 2]),
        tf.gather(x, tf.tensor1d([5, 0, 5, 2], 'int32')),
        tf.gather(x, tf.tensor1d([1, 3], 'int32'), 2),
        tf.clone(x),
        tf.cast(x, 'float32'),
        tf.cast(tf.cast(x, 'int32'), 'float32'),
      ];
    });
    // Sum accumulates in float64 where stock accumulates in float32; everything else is exact.
    expectClose(stock, overridden, 1e-6);
    expectClose(stock.slice(3), overridden.slice(3), 0);
  });

  it('give the gradients of the cpu backend for a whole transformer', async () => {
    const model = new TransformerModel({
      vocabSize: 40,
      dModel: 32,
      nLayers: 2,
      nHeads: 4,
      contextLength: 16,
      seed: 4,
    });
    const gradients = () =>
      tf.tidy(() => {
        const ids = tf.tensor2d([3, 9, 1, 30, 2, 2, 7, 8, 11, 12, 13, 4, 5, 6, 39, 0], [2, 8], 'int32');
        const positions = tf.tensor2d([0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7], [2, 8], 'int32');
        const targets = tf.tensor1d([9, 1, 30, 2, 2, 7, 8, 11, 12, 13, 4, 5, 6, 39, 0, 1], 'int32');
        const { value, grads } = tf.variableGrads(() => {
          const { hidden } = model.run(ids, positions, null);
          return tf.neg(tf.sum(targetLogprobs(model.logits(hidden), targets))) as tf.Scalar;
        }, [...model.weights.values()]);
        return [value, ...[...model.weights.values()].map((w) => grads[w.name]!)];
      });
    tf.env().set('PROD', true); // silences the cpu backend's advice to install tfjs-node
    await initBackend({ backend: 'cpu' });
    const reference = gradients().map((t) => t.dataSync() as Float32Array);
    await initBackend({ backend: 'wasm' });
    const overridden = gradients().map((t) => t.dataSync() as Float32Array);
    // The key bias gets an exactly-zero true gradient (softmax shift invariance): only noise.
    const names = ['loss', ...model.weights.keys()];
    const keep = names.map((name, i) => (name.endsWith('attn.bqkv') ? -1 : i)).filter((i) => i >= 0);
    expectClose(
      keep.map((i) => reference[i]!),
      keep.map((i) => overridden[i]!),
      1e-4,
    );
    model.dispose();
  });
});
