import type { Datum, LossFn } from '@pilotrl/core';
import { TfjsPolicy, Tokenizer } from '@pilotrl/policy-tfjs';
import { describe, expect, it } from 'vitest';
import { chunkedTrainer, tokenChunks } from './chunked-trainer';

const datum = (n: number, offset: number): Datum => ({
  tokenIds: Array.from({ length: n }, (_, i) => 20 + ((i + offset) % 50)),
  weights: Array.from({ length: n }, (_, i) => (i === 0 ? 0 : 1 / 30)),
  samplerLogprobs: new Array(n).fill(-3),
  advantages: Array.from({ length: n }, (_, i) => (i % 2 === 0 ? 1 : -0.5)),
});

const surrogate: LossFn = ({ datums, logprobs }) => ({
  loss: datums.reduce(
    (sum, d, i) => sum + d.weights.reduce((s, w, t) => s - w * d.advantages![t]! * logprobs[i]![t]!, 0),
    0,
  ),
  gradLogprobs: datums.map((d) => d.weights.map((w, t) => -w * d.advantages![t]!)),
});

describe('chunkedTrainer', () => {
  it('splits by token count, keeping order and at least one datum per chunk', () => {
    const chunks = tokenChunks([datum(5, 0), datum(5, 1), datum(9, 2), datum(2, 3)], 10);
    expect(chunks.map((c) => c.map((d) => d.tokenIds.length))).toEqual([[5, 5], [9], [2]]);
  });

  it('gives the same loss, logprobs and update as one unchunked call', async () => {
    const tokenizer = Tokenizer.train(['go to the kitchen and take the apple'], { vocabSize: 300 });
    const make = () =>
      TfjsPolicy.create({
        tokenizer,
        model: { dModel: 16, nLayers: 1, nHeads: 2, contextLength: 32, seed: 3 },
      });
    const [whole, split] = [await make(), await make()];
    const datums = [datum(12, 0), datum(7, 3), datum(10, 5)];
    const a = await whole.forwardBackward(datums, surrogate);
    const b = await chunkedTrainer(split, 15).forwardBackward(datums, surrogate);
    expect(b.loss).toBeCloseTo(a.loss, 5);
    const [wholeLogprobs, splitLogprobs] = [a.logprobs.flat(), b.logprobs.flat()];
    for (const [i, value] of splitLogprobs.entries()) expect(value).toBeCloseTo(wholeLogprobs[i]!, 5);
    await whole.optimStep({ learningRate: 0.01 });
    await chunkedTrainer(split, 15).optimStep({ learningRate: 0.01 });
    const [after, afterSplit] = [
      await whole.forward(datums),
      await chunkedTrainer(split, 15).forward(datums),
    ];
    const afterSplitLogprobs = afterSplit.flatMap((r) => r.logprobs);
    for (const [i, value] of after.flatMap((r) => r.logprobs).entries()) {
      expect(afterSplitLogprobs[i]).toBeCloseTo(value, 4);
    }
  });
});
