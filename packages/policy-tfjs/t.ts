import * as tf from '@tensorflow/tfjs-core';
import { initBackend } from './src/index';

await initBackend({ backend: 'tensorflow' });
for (const n of [2048 * 128, 2048 * 512]) {
  const a = tf.randomNormal([n]);
  const b = tf.randomNormal([n]);
  for (let i = 0; i < 50; i++) tf.tidy(() => tf.mul(a, b));
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const N = 300;
  for (let i = 0; i < N; i++) tf.tidy(() => tf.mul(a, b));
  const c = process.cpuUsage(c0);
  console.log(
    process.env.TF_CPU_ALLOCATOR_USE_BFC ?? '-',
    'n',
    n,
    'us/op wall',
    (((performance.now() - t0) * 1000) / N).toFixed(1),
    'us/op cpu',
    ((c.user + c.system) / N).toFixed(1),
  );
}
