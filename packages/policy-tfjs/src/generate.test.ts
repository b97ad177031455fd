import { beforeAll, describe, expect, it } from 'vitest';
import { TfjsPolicy } from './policy';
import { sftDatum } from './sft';
import { END_ID, Tokenizer } from './tokenizer';

const corpus = ['go to the kitchen. take the apple.', 'open the fridge. put the apple in the fridge.'];
const reply = 'take the apple. open the fridge.';
let policy: TfjsPolicy;

beforeAll(async () => {
  policy = await TfjsPolicy.create({
    tokenizer: Tokenizer.train(corpus, { vocabSize: 300 }),
    model: { dModel: 32, nLayers: 2, nHeads: 4, contextLength: 64, seed: 3 },
  });
  // Overfit one reply so that greedy decoding is predictable: 60 AdamW steps on its token-mean loss.
  const datum = sftDatum(policy.tokenizer, { prompt: ask('what next?'), response: reply });
  const trained = datum.weights.filter((w) => w > 0).length;
  const tokenMean = { ...datum, weights: datum.weights.map((w) => w / trained) };
  for (let step = 0; step < 60; step++) {
    await policy.forwardBackward([tokenMean], 'cross_entropy');
    await policy.optimStep({ learningRate: 1e-2, gradClipNorm: 1 });
  }
});

const ask = (content: string) => [{ role: 'user' as const, content }];

describe('generation', () => {
  it('decodes the same tokens with the KV cache as by recomputing the context', () => {
    const prompts = [policy.encode('go to the'), policy.encode('open the fridge. put'), policy.encode('x')];
    const settings = { maxTokens: 12, temperature: 0, topP: 1, stop: [] };
    const cached = policy.generateFromIds(prompts, settings);
    const full = policy.generateFromIds(prompts, settings, { useCache: false });
    expect(cached.map((r) => r.tokenIds)).toEqual(full.map((r) => r.tokenIds));
    cached.forEach((r, i) => {
      r.logprobs.forEach((lp, t) => {
        expect(lp).toBeCloseTo(full[i]!.logprobs[t]!, 4);
      });
    });
  });

  it('returns token ids and logprobs that forward() reproduces on prompt + completion', async () => {
    const [result] = await policy.generate([
      { messages: ask('what next?'), maxTokens: 20, temperature: 1, seed: 5 },
    ]);
    const tokenIds = [...result!.promptTokenIds, ...result!.tokenIds];
    const [scored] = await policy.forward([{ tokenIds, weights: tokenIds.map(() => 0) }]);
    const completion = scored!.logprobs.slice(result!.promptTokenIds.length);
    completion.forEach((lp, t) => {
      expect(lp).toBeCloseTo(result!.logprobs[t]!, 4);
    });
  });

  it('batches prompts of different lengths without changing any result', async () => {
    const requests = [
      { messages: ask('what next?'), maxTokens: 10, temperature: 0 },
      {
        messages: ask('a much longer question about the kitchen and the fridge?'),
        maxTokens: 10,
        temperature: 0,
      },
    ];
    const together = await policy.generate(requests);
    const alone = [...(await policy.generate([requests[0]!])), ...(await policy.generate([requests[1]!]))];
    expect(together.map((r) => r.tokenIds)).toEqual(alone.map((r) => r.tokenIds));
  });

  it('ends the learned reply with the end token and reports the weights version', async () => {
    const [result] = await policy.generate([{ messages: ask('what next?'), maxTokens: 40, temperature: 0 }]);
    expect(result!.text).toBe(reply);
    expect(result!.tokenIds.at(-1)).toBe(END_ID);
    expect(result!.finishReason).toBe('stop');
    expect(result!.policyVersion).toBe(policy.version);
    expect(result!.policyVersion).toBe(60);
  });

  it('stops after a stop string and keeps it in the text', async () => {
    const [result] = await policy.generate([
      { messages: ask('what next?'), temperature: 0, stop: ['apple.'] },
    ]);
    expect(result!.text).toBe('take the apple.');
    expect(result!.finishReason).toBe('stop');
    expect(result!.tokenIds.length).toBe(result!.logprobs.length);
  });

  it('stops at maxTokens with finishReason length', async () => {
    const [result] = await policy.generate([{ messages: ask('what next?'), temperature: 0, maxTokens: 3 }]);
    expect(result!.tokenIds).toHaveLength(3);
    expect(result!.finishReason).toBe('length');
  });

  it('samples reproducibly from a seed, and differently from another seed', async () => {
    const request = (seed: number) => ({
      messages: ask('something else entirely'),
      maxTokens: 15,
      temperature: 1.5,
      seed,
    });
    const [a] = await policy.generate([request(1)]);
    const [b] = await policy.generate([request(1)]);
    const [c] = await policy.generate([request(2)]);
    expect(a!.tokenIds).toEqual(b!.tokenIds);
    expect(a!.tokenIds).not.toEqual(c!.tokenIds);
  });

  it('with a tiny top-p keeps only the most likely token (greedy, logprob 0)', async () => {
    const [nucleus] = await policy.generate([{ messages: ask('zzz'), maxTokens: 8, topP: 1e-6, seed: 9 }]);
    const [greedy] = await policy.generate([{ messages: ask('zzz'), maxTokens: 8, temperature: 0 }]);
    expect(nucleus!.tokenIds).toEqual(greedy!.tokenIds);
    for (const lp of nucleus!.logprobs) expect(lp).toBe(0);
  });

  it('rejects a prompt that does not fit the context', async () => {
    await expect(policy.generate([{ messages: ask('word '.repeat(80)) }])).rejects.toThrow(
      /contextLength 64/,
    );
  });
});
