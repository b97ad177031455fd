import { type Datum, InvalidArgumentError, type LossFn, type TrainablePolicy } from '@pilotrl/core';
import * as tf from '@tensorflow/tfjs-core';
import { describe, expect, it } from 'vitest';
import { TfjsPolicy } from './policy';
import { sftDatum } from './sft';
import { Tokenizer } from './tokenizer';

const tokenizer = Tokenizer.train(['take the apple from the table', 'put the apple in the fridge'], {
  vocabSize: 290,
});

const tinyPolicy = (valueHead = false) =>
  TfjsPolicy.create({
    tokenizer,
    model: { dModel: 32, nLayers: 2, nHeads: 4, contextLength: 48, valueHead, seed: 7 },
  });

const datumOf = (text: string, extra: Partial<Datum> = {}): Datum => {
  const tokenIds = tokenizer.encode(text);
  return { tokenIds, weights: tokenIds.map((_, i) => (i === 0 ? 0 : 1)), ...extra };
};
const batch = [datumOf('take the apple from the table'), datumOf('put the apple in the fridge')];

const weightsOf = (policy: TfjsPolicy) => [...policy.readWeights().values()];
const maxDifference = (a: Float32Array[], b: Float32Array[]) =>
  Math.max(...a.map((x, i) => Math.max(...x.map((v, j) => Math.abs(v - b[i]![j]!)))));

describe('training', () => {
  it('fits a batch with cross-entropy and counts versions', async () => {
    const policy: TrainablePolicy & TfjsPolicy = await tinyPolicy();
    const first = await policy.forwardBackward(batch, 'cross_entropy');
    expect((await policy.optimStep({ learningRate: 1e-2 })).version).toBe(1);
    let last = first.loss;
    for (let i = 0; i < 40; i++) {
      last = (await policy.forwardBackward(batch, 'cross_entropy')).loss;
      await policy.optimStep({ learningRate: 1e-2 });
    }
    expect(last).toBeLessThan(first.loss / 5);
    expect(policy.version).toBe(41);
    expect(policy.sampler().version).toBe(41);
    policy.dispose();
  });

  it('back-propagates a custom loss given as d loss / d logprobs', async () => {
    // -Σ w·logp written as a LossFn must give the same update as the built-in cross-entropy.
    const negLogLikelihood: LossFn = ({ datums, logprobs }) => ({
      loss: -datums.reduce((s, d, i) => s + d.weights.reduce((t, w, j) => t + w * logprobs[i]![j]!, 0), 0),
      gradLogprobs: datums.map((d) => d.weights.map((w) => -w)),
    });
    const a = await tinyPolicy();
    const b = await tinyPolicy();
    const builtIn = await a.forwardBackward(batch, 'cross_entropy');
    const custom = await b.forwardBackward(batch, negLogLikelihood);
    expect(custom.loss).toBeCloseTo(builtIn.loss, 4);
    expect(custom.logprobs[0]![0]).toBe(0);
    await a.optimStep({ learningRate: 1e-2 });
    await b.optimStep({ learningRate: 1e-2 });
    expect(maxDifference(weightsOf(a), weightsOf(b))).toBeLessThan(1e-6);
    a.dispose();
    b.dispose();
  });

  it('accumulates gradients over forwardBackward calls until optimStep', async () => {
    const a = await tinyPolicy();
    const b = await tinyPolicy();
    await a.forwardBackward(batch, 'cross_entropy');
    await b.forwardBackward([batch[0]!], 'cross_entropy');
    await b.forwardBackward([batch[1]!], 'cross_entropy');
    const stepA = await a.optimStep({ learningRate: 1e-2, gradClipNorm: 100 });
    const stepB = await b.optimStep({ learningRate: 1e-2, gradClipNorm: 100 });
    expect(stepB.gradNorm).toBeCloseTo(stepA.gradNorm, 4);
    // Adam's first step is ±lr on every weight whose gradient is well above its epsilon (1e-2 here).
    // Where a gradient is near epsilon the step is smaller and follows the float32 rounding of the
    // sum, which native TensorFlow's threaded reductions order differently: so 1e-3, a tenth of lr.
    expect(maxDifference(weightsOf(a), weightsOf(b))).toBeLessThan(1e-3);
    await expect(a.optimStep({ learningRate: 1e-2 })).rejects.toThrow(InvalidArgumentError);
    a.dispose();
    b.dispose();
  });

  it('clips the global gradient norm and reports it before clipping', async () => {
    const a = await tinyPolicy();
    const b = await tinyPolicy();
    const before = weightsOf(a);
    await a.forwardBackward(batch, 'cross_entropy');
    await b.forwardBackward(batch, 'cross_entropy');
    // A large eps makes Adam's step proportional to the gradient, so the clip shows in the update.
    const clipped = await a.optimStep({ learningRate: 1e-2, eps: 1, gradClipNorm: 1e-3 });
    const free = await b.optimStep({ learningRate: 1e-2, eps: 1 });
    expect(clipped.gradNorm).toBeCloseTo(free.gradNorm, 5);
    expect(clipped.gradNorm).toBeGreaterThan(0.1);
    const clippedChange = maxDifference(weightsOf(a), before);
    expect(clippedChange).toBeGreaterThan(0);
    expect(clippedChange).toBeLessThan(maxDifference(weightsOf(b), before) / 50);
    a.dispose();
    b.dispose();
  });

  it('adds an entropy bonus and trains a value head towards returns', async () => {
    const policy = await tinyPolicy(true);
    const withReturns = batch.map((d) => ({ ...d, returns: d.tokenIds.map(() => 0.5) }));
    const first = await policy.forwardBackward(withReturns, 'cross_entropy', {
      entropyCoef: 0.01,
      valueCoef: 1,
    });
    expect(first.metrics.entropy).toBeGreaterThan(0);
    await policy.optimStep({ learningRate: 1e-2 });
    let valueLoss = first.metrics.value_loss!;
    for (let i = 0; i < 30; i++) {
      valueLoss = (await policy.forwardBackward(withReturns, 'cross_entropy', { valueCoef: 1 })).metrics
        .value_loss!;
      await policy.optimStep({ learningRate: 1e-2 });
    }
    expect(valueLoss).toBeLessThan(first.metrics.value_loss! / 10);
    const [forward] = await policy.forward([withReturns[0]!]);
    expect(forward!.values![3]).toBeCloseTo(0.5, 1);
    expect(forward!.entropies!.slice(1).every((h) => h > 0)).toBe(true);
    const noHead = await tinyPolicy(false);
    await expect(noHead.forwardBackward(withReturns, 'cross_entropy', { valueCoef: 1 })).rejects.toThrow(
      /valueHead/,
    );
    policy.dispose();
    noHead.dispose();
  });

  it('restores a weight snapshot exactly (old and reference policies)', async () => {
    const policy = await tinyPolicy();
    const [before] = await policy.forward([batch[0]!]);
    const snapshot = policy.snapshot();
    await policy.forwardBackward(batch, 'cross_entropy');
    await policy.optimStep({ learningRate: 1e-2 });
    const [moved] = await policy.forward([batch[0]!]);
    expect(moved!.logprobs).not.toEqual(before!.logprobs);
    policy.restore(snapshot);
    const [after] = await policy.forward([batch[0]!]);
    expect(after!.logprobs).toEqual(before!.logprobs);
    expect(policy.version).toBe(0);
    snapshot.dispose();
    policy.dispose();
  });

  it('keeps the tensor count flat over 100 training steps', async () => {
    const policy = await tinyPolicy(true);
    const data = batch.map((d) => ({ ...d, returns: d.tokenIds.map(() => 1) }));
    const step = async () => {
      await policy.forwardBackward(data, 'cross_entropy', { entropyCoef: 0.01, valueCoef: 0.5 });
      await policy.optimStep({ learningRate: 1e-3, weightDecay: 0.01, gradClipNorm: 1 });
    };
    await step();
    const afterOne = tf.memory().numTensors;
    for (let i = 1; i < 100; i++) await step();
    expect(tf.memory().numTensors).toBe(afterOne);
    await policy.generate([{ messages: [{ role: 'user', content: 'take' }], maxTokens: 5 }]);
    await policy.generate([{ messages: [{ role: 'user', content: 'take' }], choices: ['a', 'b'] }]);
    await policy.forward(data);
    expect(tf.memory().numTensors).toBe(afterOne);
    policy.dispose();
  });

  it('masks the prompt out of SFT datums and validates datums', async () => {
    const datum = sftDatum(tokenizer, {
      prompt: [{ role: 'user', content: 'where?' }],
      response: 'the table',
    });
    const promptLength = datum.weights.indexOf(1);
    expect(promptLength).toBeGreaterThan(2);
    expect(datum.weights.slice(promptLength).every((w) => w === 1)).toBe(true);
    expect(datum.tokenIds.length - promptLength).toBe(tokenizer.encode('the table').length + 1);
    const policy = await tinyPolicy();
    await expect(
      policy.forwardBackward([{ tokenIds: [1, 2], weights: [1, 1] }], 'cross_entropy'),
    ).rejects.toThrow(/first token/);
    await expect(
      policy.forwardBackward(
        [{ tokenIds: new Array(49).fill(5), weights: new Array(49).fill(0) }],
        'cross_entropy',
      ),
    ).rejects.toThrow(/context holds 48/);
    policy.dispose();
  });
});
