import type { GenerateRequest } from '@pilotrl/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransformerModel } from './model';
import { scoreCandidates } from './packed-scoring';
import { TfjsPolicy } from './policy';
import { PrefixCache } from './prefix-cache';
import { END_ID, Tokenizer } from './tokenizer';

const steps = [
  'go to cabinet 1',
  'go to cabinet 2',
  'take apple 1',
  'open fridge 1',
  'put apple 1 in fridge 1',
];
const tokenizer = Tokenizer.train(steps, { vocabSize: 300 });
const model = { dModel: 32, nLayers: 2, nHeads: 2, contextLength: 320, seed: 5 };
let cached: TfjsPolicy;
let uncached: TfjsPolicy;

beforeAll(async () => {
  cached = await TfjsPolicy.create({ tokenizer, model, prefixCacheBytes: 2 ** 20 });
  uncached = await TfjsPolicy.create({ tokenizer, model, prefixCacheBytes: 0 });
});
afterAll(() => {
  cached.dispose();
  uncached.dispose();
});

/** Plans of several episodes written a step at a time, each call's prompts extending the last's. */
function planCalls(episodes: number, edges: number): GenerateRequest[][] {
  return Array.from({ length: edges }, (_, edge) =>
    Array.from({ length: episodes }, (_, e) => ({
      messages: [
        { role: 'system' as const, content: `Write a plan, one step a line. ${steps.join(', ')}.` },
        { role: 'user' as const, content: `Task ${e}: put a cool apple in the cabinet.` },
        {
          role: 'user' as const,
          content: `Plan:\n${steps.slice(0, edge + (e % 2)).join('\n')}`,
        },
      ],
      choices: steps.slice(edge % 3),
      temperature: 0,
    })),
  );
}

describe('prefix cache', () => {
  it('gives the choices and logprobs of uncached scoring', async () => {
    const check = async () => {
      for (const requests of planCalls(4, 5)) {
        const [fast, plain] = [await cached.generate(requests), await uncached.generate(requests)];
        fast.forEach((result, i) => {
          const expected = plain[i]!;
          expect(result.choiceIndex).toBe(expected.choiceIndex);
          expect(result.tokenIds).toEqual(expected.tokenIds);
          result.choiceLogprobs!.forEach((lp, c) => {
            expect(Math.abs(lp - expected.choiceLogprobs![c]!)).toBeLessThan(1e-5);
          });
          result.logprobs.forEach((lp, t) => {
            expect(Math.abs(lp - expected.logprobs[t]!)).toBeLessThan(1e-5);
          });
        });
      }
    };
    await check();
    // A training step changes the weights: what was cached before must not be reused.
    for (const policy of [cached, uncached]) {
      const tokenIds = [...policy.encode('take apple 1'), END_ID];
      await policy.forwardBackward(
        [{ tokenIds, weights: tokenIds.map((_, i) => (i === 0 ? 0 : 1)) }],
        'cross_entropy',
      );
      await policy.optimStep({ learningRate: 0.05 });
    }
    await check();
  });

  it('reuses the longest shared prefix and stays within its byte budget', () => {
    const net = new TransformerModel({ ...model, vocabSize: tokenizer.vocabSize });
    const bytesPerToken = model.nLayers * 2 * model.dModel * 4;
    const cache = new PrefixCache(net.config, 100 * bytesPerToken);
    const prompt = (n: number, seed: number) =>
      Array.from({ length: n }, (_, i) => 20 + (((i + 1) * seed) % 200));
    const candidates = [[...tokenizer.encode('look'), END_ID]];
    try {
      scoreCandidates(net, [{ prompt: prompt(40, 3), candidates }], cache);
      // A prompt extending a cached one runs its last tokens only, and scores as a full pass does.
      const extended = [{ prompt: [...prompt(40, 3), 9, 10, 11], candidates: [...candidates, [12, END_ID]] }];
      const full = scoreCandidates(net, extended)[0]!;
      const fast = scoreCandidates(net, extended, cache)[0]!;
      expect(cache.lookup(extended[0]!.prompt)?.length).toBe(42);
      fast.tokenLogprobs.flat().forEach((lp, i) => {
        expect(Math.abs(lp - full.tokenLogprobs.flat()[i]!)).toBeLessThan(1e-5);
      });
      expect(cache.lookup([...prompt(30, 3), 7, 8])?.length).toBe(30);
      // The whole prompt is never reused: its last token is run for its logits.
      expect(cache.lookup(prompt(40, 3))?.length).toBe(39);
      for (let seed = 5; seed < 12; seed++) {
        scoreCandidates(net, [{ prompt: prompt(45, seed), candidates }], cache);
        expect(cache.bytes).toBeLessThanOrEqual(cache.maxBytes);
      }
      expect(cache.size).toBeGreaterThanOrEqual(1);
      expect(cache.size).toBeLessThanOrEqual(2);
      expect(cache.lookup(prompt(40, 3))).toBeUndefined();
      // A prompt larger than the whole budget is not kept.
      scoreCandidates(net, [{ prompt: prompt(120, 13), candidates }], cache);
      expect(cache.lookup(prompt(120, 13))).toBeUndefined();
    } finally {
      cache.clear();
      net.dispose();
    }
    expect(cache.bytes).toBe(0);
  });
});
