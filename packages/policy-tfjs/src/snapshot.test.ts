import type { TrainablePolicy } from '@pilotrl/core';
import * as tf from '@tensorflow/tfjs-core';
import { describe, expect, it } from 'vitest';
import { TfjsPolicy } from './policy';
import { Tokenizer } from './tokenizer';

const tokenizer = Tokenizer.train(['take the apple from the table', 'put the apple in the fridge'], {
  vocabSize: 290,
});

const tinyPolicy = (dModel = 32) =>
  TfjsPolicy.create({ tokenizer, model: { dModel, nLayers: 2, nHeads: 4, contextLength: 48, seed: 7 } });

const tokenIds = tokenizer.encode('take the apple from the table');
const batch = [{ tokenIds, weights: tokenIds.map((_, i) => (i === 0 ? 0 : 1)) }];
const messages = [{ role: 'user' as const, content: 'take the' }];

const logprobsOf = async (policy: TrainablePolicy) => (await policy.forward(batch))[0]!.logprobs;

async function train(policy: TrainablePolicy, steps: number): Promise<void> {
  for (let i = 0; i < steps; i++) {
    await policy.forwardBackward(batch, 'cross_entropy');
    await policy.optimStep({ learningRate: 1e-2 });
  }
}

describe('snapshot', () => {
  it('is a frozen TrainablePolicy: the weights and version it was taken at, while the policy trains on', async () => {
    const policy = await tinyPolicy();
    await train(policy, 2);
    const before = await logprobsOf(policy);
    const [sampledBefore] = await policy.generate([{ messages, maxTokens: 6, seed: 3 }]);
    const reference: TrainablePolicy = policy.snapshot();
    expect(reference.version).toBe(2);
    expect(reference.name).toBe(policy.name);

    await train(policy, 3);
    expect(await logprobsOf(policy)).not.toEqual(before);
    expect(await logprobsOf(reference)).toEqual(before);
    expect(reference.version).toBe(2);
    const [sampledNow] = await reference.sampler().generate([{ messages, maxTokens: 6, seed: 3 }]);
    expect(sampledNow).toEqual(sampledBefore);

    // Training the copy leaves the policy alone, too.
    const trained = await logprobsOf(policy);
    await train(reference, 1);
    expect(await logprobsOf(policy)).toEqual(trained);
    (reference as TfjsPolicy).dispose();
    policy.dispose();
  });

  it('frees every tensor it holds when disposed', async () => {
    const policy = await tinyPolicy();
    await train(policy, 1);
    const held = tf.memory().numTensors;
    const snapshot = policy.snapshot();
    await train(policy, 1);
    await train(snapshot, 1);
    snapshot.dispose();
    await train(policy, 1);
    expect(tf.memory().numTensors).toBe(held);
    policy.dispose();
  });

  it('restores only into a model of the same config, naming the weight that differs', async () => {
    const policy = await tinyPolicy();
    const wider = await tinyPolicy(64);
    const snapshot = wider.snapshot();
    expect(() => policy.restore(snapshot)).toThrow(
      /the snapshot does not fit this model: its weight wte is of shape \[\d+,64\], not \[\d+,32\]/,
    );
    const untouched = await tinyPolicy();
    expect(await logprobsOf(policy)).toEqual(await logprobsOf(untouched));
    untouched.dispose();
    snapshot.dispose();
    wider.dispose();
    policy.dispose();
  });
});
