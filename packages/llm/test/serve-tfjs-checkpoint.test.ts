// End to end: a policy-tfjs checkpoint is loaded, served over HTTP on 127.0.0.1, and driven
// through the chat client; the answers must be the ones the policy gives in process.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GenerateRequest } from '@pilotrl/core';
import { TfjsPolicy, Tokenizer } from '@pilotrl/policy-tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatClient } from '../src/chat-client';
import { type ChatCompletionsServer, createChatCompletionsServer } from '../src/chat-completions-server';

const corpus = [
  'You are in a kitchen. Take the tomato and put it in the bowl.',
  '<thought>I need the tomato.</thought><action>take tomato</action>',
  '<action>put tomato in bowl</action><action>mix bowl</action>',
];

describe('serving a policy-tfjs checkpoint', () => {
  let dir: string;
  let policy: TfjsPolicy;
  let server: ChatCompletionsServer;
  let baseUrl: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pilotrl-llm-serve-'));
    const trained = await TfjsPolicy.create({
      tokenizer: Tokenizer.train(corpus, { vocabSize: 300 }),
      model: { dModel: 32, nLayers: 1, nHeads: 2, contextLength: 128, seed: 3 },
    });
    await trained.saveState(join(dir, 'checkpoint'));
    trained.dispose();
    policy = await TfjsPolicy.load(join(dir, 'checkpoint'));
    server = createChatCompletionsServer({
      policy: policy.sampler(),
      modelName: 'tiny-tfjs',
      tokenText: (id) => policy.tokenizer.decode([id]),
    });
    baseUrl = await server.listen();
  });

  afterAll(async () => {
    await server.close();
    policy.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('returns over HTTP exactly what the policy samples in process: text, token ids, logprobs', async () => {
    const request: GenerateRequest = {
      messages: [{ role: 'user', content: 'You are in a kitchen. Take the tomato.' }],
      maxTokens: 12,
      temperature: 1,
      seed: 11,
    };
    const client = createChatClient({ baseUrl, model: 'tiny-tfjs', dialect: 'vllm' });
    const [remote] = await client.generate([request]);
    const [local] = await policy.sampler().generate([request]);
    expect(remote!.tokenIds).toEqual(local!.tokenIds);
    expect(remote!.tokenIds.length).toBeGreaterThan(0);
    expect(remote!.text).toBe(local!.text);
    expect(remote!.promptTokenIds).toEqual(local!.promptTokenIds);
    for (const [index, logprob] of remote!.logprobs.entries())
      expect(logprob).toBeCloseTo(local!.logprobs[index]!, 5);
  });

  it('constrains to choices through guided_choice', async () => {
    const client = createChatClient({ baseUrl, model: 'tiny-tfjs', dialect: 'vllm' });
    const choices = ['take tomato', 'put tomato in bowl', 'mix bowl'];
    const [result] = await client.generate([
      { messages: [{ role: 'user', content: 'Act.' }], choices, seed: 2 },
    ]);
    expect(choices).toContain(result!.text);
    expect(result!.finishReason).toBe('choice');
    expect(result!.choiceIndex).toBe(choices.indexOf(result!.text));
  });

  it('serves chat() with one logprob per generated token, tokens written by the tokenizer', async () => {
    const client = createChatClient({ baseUrl, model: 'tiny-tfjs' });
    const request = { messages: [{ role: 'user' as const, content: 'Hello' }], maxTokens: 6, seed: 1 };
    const response = await client.chat({ ...request, logprobs: true });
    const [local] = await policy.sampler().generate([request]);
    expect(response.tokens!.map((token) => token.token)).toEqual(
      local!.tokenIds.map((id) => policy.tokenizer.decode([id])),
    );
    expect(response.usage.completionTokens).toBe(local!.tokenIds.length);
    expect(response.tokens!.every((token) => token.logprob <= 0)).toBe(true);
  });
});
