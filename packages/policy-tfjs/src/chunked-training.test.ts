import { type Datum, InvalidArgumentError, type LossFn } from '@pilotrl/core';
import { describe, expect, it } from 'vitest';
import { TfjsPolicy } from './policy';
import { tokenChunks } from './token-chunks';
import { Tokenizer } from './tokenizer';

const tokenizer = Tokenizer.train(['go to the kitchen and take the apple'], { vocabSize: 300 });
const make = (maxTrainTokens?: number) =>
  TfjsPolicy.create({
    tokenizer,
    model: { dModel: 16, nLayers: 1, nHeads: 2, contextLength: 32, valueHead: true, seed: 3 },
    ...(maxTrainTokens === undefined ? {} : { maxTrainTokens }),
  });

const datum = (n: number, offset: number, weight = 1 / 30): Datum => ({
  tokenIds: Array.from({ length: n }, (_, i) => 20 + ((i + offset) % 50)),
  weights: Array.from({ length: n }, (_, i) => (i === 0 ? 0 : weight)),
  samplerLogprobs: new Array(n).fill(-3),
  advantages: Array.from({ length: n }, (_, i) => (i % 2 === 0 ? 1 : -0.5)),
  returns: Array.from({ length: n }, (_, i) => (i % 3) / 3),
});

const surrogate: LossFn = ({ datums, logprobs }) => ({
  loss: datums.reduce(
    (sum, d, i) => sum + d.weights.reduce((s, w, t) => s - w * d.advantages![t]! * logprobs[i]![t]!, 0),
    0,
  ),
  gradLogprobs: datums.map((d) => d.weights.map((w, t) => -w * d.advantages![t]!)),
});

const expectClose = (actual: readonly number[], expected: readonly number[], digits: number) => {
  expect(actual).toHaveLength(expected.length);
  for (const [i, value] of actual.entries()) expect(value).toBeCloseTo(expected[i]!, digits);
};

describe('chunked training', () => {
  it('splits by token count, keeping order and at least one datum per chunk', () => {
    const chunks = tokenChunks([datum(5, 0), datum(5, 1), datum(9, 2), datum(2, 3)], 10);
    expect(chunks.map((c) => c.map((d) => d.tokenIds.length))).toEqual([[5, 5], [9], [2]]);
  });

  it('gives the same loss, logprobs, metrics and update as one unchunked pass', async () => {
    const [whole, split] = [await make(), await make(15)];
    const datums = [datum(12, 0), datum(7, 3), datum(10, 5)];
    const options = { entropyCoef: 0.01, valueCoef: 0.5 };
    const a = await whole.forwardBackward(datums, surrogate, options);
    const b = await split.forwardBackward(datums, surrogate, options);
    expect(b.loss).toBeCloseTo(a.loss, 5);
    expectClose(b.logprobs.flat(), a.logprobs.flat(), 5);
    for (const key of ['loss', 'tokens', 'entropy', 'value_loss']) {
      expect(b.metrics[key]).toBeCloseTo(a.metrics[key]!, 4);
    }
    await whole.optimStep({ learningRate: 0.01 });
    await split.optimStep({ learningRate: 0.01 });
    const [after, afterSplit] = [await whole.forward(datums), await split.forward(datums)];
    expectClose(
      afterSplit.flatMap((r) => r.logprobs),
      after.flatMap((r) => r.logprobs),
      4,
    );
    expectClose(
      afterSplit.flatMap((r) => r.values!),
      after.flatMap((r) => r.values!),
      4,
    );
  });

  it('skips chunks with nothing to train on under cross-entropy', async () => {
    const [whole, split] = [await make(), await make(10)];
    const datums = [datum(8, 0), datum(9, 2, 0), datum(6, 4)];
    const a = await whole.forwardBackward(datums, 'cross_entropy');
    const b = await split.forwardBackward(datums, 'cross_entropy');
    expect(b.loss).toBeCloseTo(a.loss, 5);
    expectClose(b.logprobs.flat(), a.logprobs.flat(), 5);
    expect(b.logprobs[1]).toEqual(new Array(9).fill(0));
    await expect(split.forwardBackward([datum(9, 2, 0)], 'cross_entropy')).rejects.toThrow(
      /nothing to train/,
    );
  });

  it('rejects a bad datum before any chunk accumulates a gradient', async () => {
    const policy = await make(10);
    const bad = { ...datum(8, 1), weights: [0, 1] };
    await expect(policy.forwardBackward([datum(8, 0), bad], 'cross_entropy')).rejects.toThrow(/datum 1/);
    await expect(policy.optimStep({ learningRate: 0.01 })).rejects.toThrow(/no gradient accumulated/);
  });

  it('rejects a token budget that is not a positive whole number', async () => {
    await expect(make(0)).rejects.toThrow(InvalidArgumentError);
    await expect(make(2.5)).rejects.toThrow(/maxTrainTokens/);
  });
});
