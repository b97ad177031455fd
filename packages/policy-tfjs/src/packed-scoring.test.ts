import { beforeAll, describe, expect, it } from 'vitest';
import { TransformerModel } from './model';
import { packedLength, scoreCandidates, scoreChoices } from './packed-scoring';
import { TfjsPolicy } from './policy';
import { END_ID, Tokenizer } from './tokenizer';

let policy: TfjsPolicy;
const choices = ['go to cabinet 1', 'go to cabinet 2', 'go to countertop 1', 'open fridge 1', 'look'];

beforeAll(async () => {
  policy = await TfjsPolicy.create({
    tokenizer: Tokenizer.train(choices, { vocabSize: 290 }),
    model: { dModel: 32, nLayers: 2, nHeads: 2, contextLength: 96, seed: 11 },
  });
});

const messages = [{ role: 'user' as const, content: 'You are in the middle of a room. What do you do?' }];

describe('packed scoring', () => {
  it('gives each candidate the logprobs of a plain causal pass over prompt + candidate', async () => {
    const prompt = policy.encode('You see a cabinet 1 and a fridge 1.');
    const candidates = choices.map((c) => [...policy.encode(c), END_ID]);
    const packed = policy.scoreContinuations(prompt, candidates);
    const plain = await policy.forward(
      candidates.map((c) => ({ tokenIds: [...prompt, ...c], weights: [...prompt, ...c].map(() => 0) })),
    );
    candidates.forEach((c, i) => {
      const expected = plain[i]!.logprobs.slice(prompt.length);
      expect(packed.tokenLogprobs[i]).toHaveLength(c.length);
      packed.tokenLogprobs[i]!.forEach((lp, t) => {
        expect(lp).toBeCloseTo(expected[t]!, 4);
      });
    });
    // Shared prefixes are packed once.
    const separate = candidates.reduce((n, c) => n + prompt.length + c.length, 0);
    expect(packedLength({ prompt, candidates })).toBeLessThan(separate / 2);
  });

  it('gives choosing the same constrained scores, bit for bit, without the model logprobs', () => {
    const net = new TransformerModel({
      dModel: 32,
      nLayers: 2,
      nHeads: 2,
      contextLength: 96,
      seed: 11,
      vocabSize: policy.tokenizer.vocabSize,
    });
    try {
      const candidates = choices.map((c) => [...policy.encode(c), END_ID]);
      const requests = [0, 0.7, 1.3].map((temperature, i) => ({
        prompt: policy.encode(`You see a cabinet ${i + 1} and a fridge 1.`),
        candidates: candidates.slice(i),
        temperature,
      }));
      const chosen = scoreChoices(net, requests);
      const full = scoreCandidates(net, requests);
      expect(chosen).toHaveLength(requests.length);
      chosen.forEach((scores, i) => {
        expect(scores).not.toHaveProperty('tokenLogprobs');
        expect(scores.constrainedTokenLogprobs).toEqual(full[i]!.constrainedTokenLogprobs);
        expect(scores.constrainedLogprobs).toEqual(full[i]!.constrainedLogprobs);
      });
    } finally {
      net.dispose();
    }
  });

  it("tells its samplers' users how many context tokens the packed choices take", () => {
    const candidates = choices.map((choice) => [...policy.tokenizer.encode(choice), END_ID]);
    const packed = packedLength({ prompt: [], candidates });
    expect(policy.sampler().choiceTokens!(choices)).toBe(packed);
    // Shared prefixes are packed once: less than all choices end to end, more than the longest one.
    expect(packed).toBeLessThan(candidates.reduce((sum, c) => sum + c.length, 0));
    expect(packed).toBeGreaterThan(Math.max(...candidates.map((c) => c.length)));
  });

  it('returns the exact constrained distribution over the choices', async () => {
    const [result] = await policy.generate([{ messages, choices, temperature: 0 }]);
    const probabilities = result!.choiceLogprobs!.map(Math.exp);
    expect(probabilities.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 6);
    // Greedy picks the most likely whole choice; its tokens' logprobs add up to its logprob.
    const best = probabilities.indexOf(Math.max(...probabilities));
    expect(result!.choiceIndex).toBe(best);
    expect(result!.text).toBe(choices[best]);
    expect(result!.finishReason).toBe('choice');
    expect(result!.tokenIds).toEqual([...policy.encode(choices[best]!), END_ID]);
    expect(result!.logprobs.reduce((a, b) => a + b, 0)).toBeCloseTo(result!.choiceLogprobs![best]!, 6);
  });

  it('samples choices with the frequencies of the constrained distribution', async () => {
    const requests = Array.from({ length: 400 }, (_, seed) => ({ messages, choices, temperature: 1, seed }));
    const results = await policy.generate(requests);
    const expected = results[0]!.choiceLogprobs!.map(Math.exp);
    const counts = choices.map((_, i) => results.filter((r) => r.choiceIndex === i).length / requests.length);
    counts.forEach((frequency, i) => {
      expect(Math.abs(frequency - expected[i]!)).toBeLessThan(0.08);
    });
  });

  it('sharpens the constrained distribution at low temperature', async () => {
    const [warm] = await policy.generate([{ messages, choices, temperature: 1 }]);
    const [cold] = await policy.generate([{ messages, choices, temperature: 0.1 }]);
    expect(Math.max(...cold!.choiceLogprobs!)).toBeGreaterThan(Math.max(...warm!.choiceLogprobs!));
  });

  it('mixes constrained and free requests in one call, in order', async () => {
    const results = await policy.generate([
      { messages, maxTokens: 4, temperature: 0 },
      { messages, choices: ['look', 'open fridge 1'], temperature: 0 },
    ]);
    expect(results[0]!.finishReason).not.toBe('choice');
    expect(['look', 'open fridge 1']).toContain(results[1]!.text);
  });

  it('batches requests by packed length and returns each in its place, as if scored alone', async () => {
    const small = await TfjsPolicy.create({
      tokenizer: policy.tokenizer,
      model: { dModel: 32, nLayers: 2, nHeads: 2, contextLength: 96, seed: 11 },
      maxBatch: 2,
    });
    // Longest first, so that sorting by packed length reorders them across batches.
    const requests = [5, 1, 4, 2, 3].map((n, seed) => ({
      messages: [{ role: 'user' as const, content: `room ${'and a cabinet '.repeat(n)}` }],
      choices: choices.slice(0, n),
      temperature: 1,
      seed,
    }));
    const together = await small.generate(requests);
    for (const [i, request] of requests.entries()) {
      const [alone] = await small.generate([request]);
      expect(together[i]!.text).toBe(alone!.text);
      expect(together[i]!.choiceLogprobs).toHaveLength(request.choices.length);
      together[i]!.choiceLogprobs!.forEach((lp, c) => {
        expect(lp).toBeCloseTo(alone!.choiceLogprobs![c]!, 5);
      });
    }
  });

  it('treats a repeated choice as one string of the distribution', async () => {
    const repeated = ['look', 'open fridge 1', 'look'];
    const results = await policy.generate(
      Array.from({ length: 200 }, (_, seed) => ({ messages, choices: repeated, temperature: 1, seed })),
    );
    const [lookLp, fridgeLp, againLp] = results[0]!.choiceLogprobs!;
    expect(againLp).toBe(lookLp);
    expect(Math.exp(lookLp!) + Math.exp(fridgeLp!)).toBeCloseTo(1, 6);
    expect(results.every((r) => r.choiceIndex !== 2)).toBe(true);
    const lookShare = results.filter((r) => r.choiceIndex === 0).length / results.length;
    expect(Math.abs(lookShare - Math.exp(lookLp!))).toBeLessThan(0.1);
  });

  it('reports the allowed ids of every chosen token, and training on them reproduces the sampler logprobs', async () => {
    const results = await policy.generate(
      Array.from({ length: 12 }, (_, seed) => ({ messages, choices, temperature: 1, seed })),
    );
    const first = new Set(choices.map((c) => policy.encode(c)[0]!));
    for (const result of results) {
      expect(result.allowedTokenIds).toHaveLength(result.tokenIds.length);
      expect(new Set(result.allowedTokenIds![0])).toEqual(first);
      result.tokenIds.forEach((id, t) => {
        expect(result.allowedTokenIds![t]).toContain(id);
      });
    }
    const datums = results.map((r) => ({
      tokenIds: [...r.promptTokenIds, ...r.tokenIds],
      weights: [...r.promptTokenIds.map(() => 0), ...r.tokenIds.map(() => 1)],
      allowedTokenIds: [...r.promptTokenIds.map(() => null), ...r.allowedTokenIds!],
    }));
    const constrained = await policy.forward(datums);
    const free = await policy.forward(datums.map(({ tokenIds, weights }) => ({ tokenIds, weights })));
    results.forEach((r, i) => {
      const offset = r.promptTokenIds.length;
      r.logprobs.forEach((lp, t) => {
        expect(constrained[i]!.logprobs[offset + t]).toBeCloseTo(lp, 4);
        expect(free[i]!.logprobs[offset + t]).toBeLessThanOrEqual(lp + 1e-5);
      });
      // A token that was the only way on has probability 1 under the constraint.
      r.allowedTokenIds!.forEach((ids, t) => {
        if (ids.length === 1) expect(constrained[i]!.logprobs[offset + t]).toBeCloseTo(0, 5);
      });
    });
  });

  it('trains restricted tokens on their constrained logprobs, and rejects sets outside the vocabulary', async () => {
    const [result] = await policy.generate([{ messages, choices, temperature: 0 }]);
    const datum = {
      tokenIds: [...result!.promptTokenIds, ...result!.tokenIds],
      weights: [...result!.promptTokenIds.map(() => 0), ...result!.tokenIds.map(() => 1)],
      allowedTokenIds: [...result!.promptTokenIds.map(() => null), ...result!.allowedTokenIds!],
    };
    const sum = (lps: number[]) => lps.reduce((a, lp, t) => a + lp * datum.weights[t]!, 0);
    const snapshot = policy.snapshot();
    try {
      const before = (await policy.forward([datum]))[0]!.logprobs;
      const trained = await policy.forwardBackward([datum], 'cross_entropy');
      expect(trained.loss).toBeCloseTo(-sum(before), 4);
      await policy.optimStep({ learningRate: 1e-2 });
      expect(sum((await policy.forward([datum]))[0]!.logprobs)).toBeGreaterThan(sum(before));
    } finally {
      policy.restore(snapshot);
      snapshot.dispose();
    }
    const last = datum.tokenIds.length - 1;
    const vocab = policy.tokenizer.vocabSize;
    const outside = datum.allowedTokenIds.map((ids, t) => (t === last ? [datum.tokenIds[t]!, vocab] : ids));
    await expect(policy.forward([{ ...datum, allowedTokenIds: outside }])).rejects.toThrow(
      `allows token id ${vocab}, outside the vocabulary of ${vocab}`,
    );
  });

  it('stops between batches when the caller aborts', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(policy.generate([{ messages, choices }], { signal: controller.signal })).rejects.toThrow();
  });
});
