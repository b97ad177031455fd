// The README's first snippet, as written there.
import { expect, it } from 'vitest';
import { TfjsPolicy, Tokenizer, trainSft } from './index';

it('trains a tiny policy and samples from it in ten lines', async () => {
  const pairs = [
    ['where is the apple?', 'on the table'],
    ['where is the mug?', 'in the sink'],
  ];
  const tokenizer = Tokenizer.train(pairs.flat(), { vocabSize: 300 });
  const policy = await TfjsPolicy.create({
    tokenizer,
    model: { dModel: 32, nLayers: 2, nHeads: 4, contextLength: 64 },
  });
  const examples = pairs.map(([q, a]) => ({
    prompt: [{ role: 'user' as const, content: q! }],
    response: a!,
  }));
  await trainSft(policy, examples, { steps: 80, batchSize: 2, learningRate: 1e-2 });
  const [reply] = await policy
    .sampler()
    .generate([{ messages: [{ role: 'user', content: 'where is the mug?' }], temperature: 0 }]);
  expect(reply!.text).toBe('in the sink');
  expect(reply!.tokenIds.length).toBe(reply!.logprobs.length);
  policy.dispose();
});
