// The same seed must give the same model on every backend: logprobs, loss, gradient norm, the
// weights after AdamW steps, and greedy generation, native TensorFlow against wasm. Runs wherever
// the native backend is set up, and always in CI.
import { type Datum, PilotRLError } from '@pilotrl/core';
import * as tf from '@tensorflow/tfjs-core';
import { describe, expect, it } from 'vitest';
import { type BackendChoice, initBackend } from './backend';
import { nativeInstallState, nativePackageDir } from './native/native-install';
import { TfjsPolicy } from './policy';
import { Tokenizer } from './tokenizer';

const nativeReady = nativeInstallState('cpu', nativePackageDir('cpu')).state === 'ready';

const tokenizer = Tokenizer.train(
  [
    'take the apple from the table',
    'put the apple in the fridge',
    'go to the fridge 1',
    'heat the mug with microwave 1',
  ],
  { vocabSize: 300 },
);
const datumOf = (text: string): Datum => {
  const tokenIds = tokenizer.encode(text);
  return { tokenIds, weights: tokenIds.map((_, i) => (i < 2 ? 0 : 1)) };
};
const batch = [
  datumOf('take the apple from the table'),
  datumOf('put the apple in the fridge'),
  datumOf('heat the mug with microwave 1'),
];

interface Run {
  logprobs: number[];
  loss: number;
  gradNorm: number;
  weights: Float32Array;
  greedy: string;
  tensorsLeaked: number;
}

/** Three AdamW steps from the same seed on `backend`; every figure read back to plain numbers. */
async function runOn(backend: BackendChoice): Promise<Run> {
  await initBackend({ backend });
  const policy = await TfjsPolicy.create({
    backend,
    tokenizer,
    model: { dModel: 64, nLayers: 2, nHeads: 4, contextLength: 64, seed: 11 },
  });
  expect(tf.getBackend()).toBe(backend === 'wasm' ? 'wasm' : 'tensorflow');
  const forward = await policy.forward(batch);
  const first = await policy.forwardBackward(batch, 'cross_entropy');
  const step = await policy.optimStep({ learningRate: 3e-3, weightDecay: 0.01, gradClipNorm: 1 });
  // Counted once AdamW's moments exist: from here on, training and generation must hold steady.
  const tensorsBefore = tf.memory().numTensors;
  for (let i = 0; i < 2; i++) {
    await policy.forwardBackward(batch, 'cross_entropy');
    await policy.optimStep({ learningRate: 3e-3, weightDecay: 0.01, gradClipNorm: 1 });
  }
  const [reply] = await policy
    .sampler()
    .generate([{ messages: [{ role: 'user', content: 'take the apple' }], temperature: 0, maxTokens: 12 }]);
  const weights = Float32Array.from([...policy.readWeights().values()].flatMap((w) => Array.from(w)));
  const run: Run = {
    logprobs: forward.flatMap((r) => r.logprobs),
    loss: first.loss,
    gradNorm: step.gradNorm,
    weights,
    greedy: reply!.text,
    tensorsLeaked: tf.memory().numTensors - tensorsBefore,
  };
  policy.dispose();
  return run;
}

const maxAbsDifference = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i]! - b[i]!));
  return max;
};

describe.runIf(nativeReady || process.env.CI)('backend parity', () => {
  it('gives wasm and native TensorFlow the same logprobs, loss, gradients, AdamW steps and greedy text', async () => {
    if (!nativeReady) throw new PilotRLError('the native backend is not set up (pnpm tfjs:doctor says why)');
    const wasm = await runOn('wasm');
    const native = await runOn('tensorflow');
    // float32 sums in another order: logprobs agree to 1e-4 (absolute), the loss to 1e-5 relative.
    expect(maxAbsDifference(native.logprobs, wasm.logprobs)).toBeLessThan(1e-4);
    expect(Math.abs(native.loss - wasm.loss) / wasm.loss).toBeLessThan(1e-5);
    expect(Math.abs(native.gradNorm - wasm.gradNorm) / wasm.gradNorm).toBeLessThan(1e-4);
    // Three steps of 3e-3 move a weight by up to ~1e-2; the backends agree far below that.
    expect(maxAbsDifference(native.weights, wasm.weights)).toBeLessThan(1e-4);
    expect(native.greedy).toBe(wasm.greedy);
    // Neither backend leaks tensors over training and generation.
    expect(native.tensorsLeaked).toBe(0);
    expect(wasm.tensorsLeaked).toBe(0);
  });
});
