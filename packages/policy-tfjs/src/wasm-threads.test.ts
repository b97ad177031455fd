import * as tf from '@tensorflow/tfjs-core';
import { afterAll, expect, it } from 'vitest';
import { initBackend, shutdownBackend } from './backend';

afterAll(() => {
  shutdownBackend();
});

it('runs the wasm backend with two threads in Node and computes the same products', async () => {
  const info = await initBackend({ backend: 'wasm', wasmThreads: 2 });
  expect(info.threads).toBe(2);
  const a = tf.randomNormal([300, 200], 0, 1, 'float32', 1);
  const b = tf.randomNormal([200, 100], 0, 1, 'float32', 2);
  const threaded = tf.matMul(a, b, false, false).dataSync();
  tf.env().set('PROD', true); // silences the cpu backend's advice to install tfjs-node
  await initBackend({ backend: 'cpu' });
  const reference = tf.matMul(a, b).dataSync();
  let worst = 0;
  reference.forEach((value, i) => {
    worst = Math.max(worst, Math.abs(value - threaded[i]!));
  });
  expect(worst).toBeLessThan(1e-3);
});
