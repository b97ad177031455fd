// @pilotrl/llm's client against a real OpenAI-compatible server: llama-cpp-python's, serving
// Google's Gemma 3 270M (base model) on the CPU, from the venv of reference/setup.sh. The client is
// used as a Policy (chat, logprobs as llama.cpp spells them, stop strings, choices through a
// grammar, typed errors and retries), and token ids come from the server's tokenizer with
// re-tokenization drift checked. The judge, stage 1's plans and `pilotrl eval` against the same
// server are tested in apps/pilotrl/src/llama-cpp.engine.test.ts. Without the venv these tests skip
// loudly, and fail when CI is set.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type LlamaCppServer,
  llamaCppReference,
  startLlamaCppServer,
} from '../../../tooling/llama-cpp-server';
import { createChatClient, type LlmEvent, LlmRequestError } from './index';

const reference = llamaCppReference('@pilotrl/llm against llama-cpp-python serving Gemma 3 270M');

let server: LlamaCppServer;
const client = (options: Partial<Parameters<typeof createChatClient>[0]> = {}) =>
  createChatClient({ baseUrl: server.baseUrl, model: server.model, dialect: 'llama-cpp', ...options });

const counting = [{ role: 'user' as const, content: 'Count from 1 to 20, separated by commas: 1, 2, 3,' }];

describe.skipIf(!reference.run)('llama-cpp-python serving Gemma 3 270M', () => {
  beforeAll(async () => {
    expect(reference.installed, 'run packages/llm/reference/setup.sh first').toBe(true);
    server = await startLlamaCppServer(reference);
  });

  // A server that died mid-test is named, with its exit signal and log, beside the refused requests.
  afterEach(() => server?.assertAlive());

  afterAll(async () => {
    await server?.close();
  });

  it('lists the model and chats, with logprobs as llama.cpp spells them (token strings, no ids)', async () => {
    expect(await client().listModels()).toContain(server.model);
    const reply = await client().chat({ messages: counting, maxTokens: 16, temperature: 0, logprobs: true });
    expect(reply.text.length).toBeGreaterThan(0);
    expect(reply.tokens!.length).toBeGreaterThan(0);
    for (const token of reply.tokens!) expect(token.logprob).toBeLessThanOrEqual(0);
    expect(reply.tokens!.map((token) => token.token).join('')).toBe(reply.text);
    expect(reply.tokenIds).toBeUndefined();
    expect(reply.usage.completionTokens).toBe(reply.tokens!.length);
  });

  it('generates as a Policy: the same greedy answer again, cut after a stop string kept in the text', async () => {
    const policy = client();
    const request = { messages: counting, maxTokens: 24, temperature: 0 };
    // The server reuses the cached prefix of the last prompt; measured here, a greedy answer after a
    // full prompt evaluation differs from one after a prefix-cache hit (see the README), so the
    // prompt is sent once first and the answers compared are both answered from the cache.
    await policy.generate([request]);
    const [free] = await policy.generate([request]);
    expect(free).toMatchObject({ finishReason: 'length', policyVersion: 0 });
    // llama.cpp names no token ids, so the contract's fields stay empty unless asked to re-tokenize.
    expect(free).toMatchObject({ tokenIds: [], logprobs: [], promptTokenIds: [] });
    // A stop string from the middle of the greedy answer ends the same answer at its first
    // occurrence (which may come earlier, even at the start, when the answer repeats itself).
    const stop = free!.text.slice(8, 11);
    const [stopped] = await policy.generate([{ ...request, stop: [stop] }]);
    const end = free!.text.indexOf(stop) + stop.length;
    expect(stopped).toMatchObject({ finishReason: 'stop', text: free!.text.slice(0, end) });
  });

  it('answers a choice exactly through a grammar of the choices', async () => {
    const choices = ['go to cabinet 1', 'take mug 1 from countertop 2', 'look'];
    const results = await client().generate(
      [0, 1, 2].map((seed) => ({
        messages: [{ role: 'user' as const, content: 'You are in a kitchen. Pick your next action.' }],
        choices,
        temperature: 1,
        seed,
        maxTokens: 32,
      })),
    );
    for (const result of results) {
      expect(result.finishReason).toBe('choice');
      expect(choices).toContain(result.text);
      expect(result.text).toBe(choices[result.choiceIndex!]);
    }
  });

  it('gets token ids from the server tokenizer and detects re-tokenization drift, never silently', async () => {
    const events: LlmEvent[] = [];
    const retokenizing = createChatClient(
      {
        baseUrl: server.baseUrl,
        model: server.model,
        dialect: 'llama-cpp',
        tokenIds: 'retokenize',
        onTokenDrift: 'drop',
      },
      { onEvent: (event) => events.push(event) },
    );
    const requests = [0, 1, 2].map((seed) => ({
      messages: [{ role: 'user' as const, content: 'Write one sentence about a kitchen.' }],
      maxTokens: 12,
      temperature: 1,
      seed,
    }));
    const results = await retokenizing.generate(requests);
    let withIds = 0;
    for (const result of results) {
      expect(result.tokenIds.length).toBe(result.logprobs.length);
      if (result.tokenIds.length === 0) continue;
      withIds += 1;
      // The ids are the server's: they decode back to the text the model wrote.
      expect(await retokenizing.tokenizer!.decode(result.tokenIds)).toBe(result.text);
    }
    expect(withIds + retokenizing.tokenDrifts).toBe(results.length);
    expect(events.filter((event) => event.type === 'token_drift')).toHaveLength(retokenizing.tokenDrifts);
    console.info(
      `llama.cpp re-tokenization: ${withIds} of ${results.length} samples kept server ids, ${retokenizing.tokenDrifts} drifted`,
    );
  });

  it('encodes a prompt to the ids the server reads it as (its /extras/tokenize and its usage agree)', async () => {
    const tokenizer = client().tokenizer!;
    const prompt = 'You are in the middle of a room. Looking quickly around you, you see a cabinet 1.';
    const ids = await tokenizer.encode(prompt);
    expect(await tokenizer.decode(ids)).toBe(prompt);
    const response = await fetch(`${server.baseUrl}/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: server.model, prompt, max_tokens: 1 }),
    });
    const body = (await response.json()) as { usage: { prompt_tokens: number } };
    // The server's count includes the begin-of-sequence token the tokenizer leaves out.
    expect(body.usage.prompt_tokens).toBe(ids.length + 1);
  });

  it('fails with a typed error, not retried, when the server rejects a request (4xx)', async () => {
    const events: LlmEvent[] = [];
    const policy = createChatClient(
      { baseUrl: server.baseUrl, model: server.model, dialect: 'llama-cpp' },
      { onEvent: (event) => events.push(event) },
    );
    const tooLong = 'kitchen '.repeat(6000);
    const failure = await policy
      .generate([{ messages: [{ role: 'user', content: tooLong }], maxTokens: 8 }])
      .catch((error: unknown) => error);
    expect(LlmRequestError.isInstance(failure)).toBe(true);
    expect(failure).toMatchObject({ reason: 'http', attempts: 1 });
    expect((failure as LlmRequestError).status).toBeGreaterThanOrEqual(400);
    expect((failure as LlmRequestError).status).toBeLessThan(500);
    expect(events.filter((event) => event.type === 'retry')).toHaveLength(0);
  });

  it('retries a request that times out, then fails with the attempts counted', async () => {
    const events: LlmEvent[] = [];
    const impatient = createChatClient(
      {
        baseUrl: server.baseUrl,
        model: server.model,
        dialect: 'llama-cpp',
        timeoutMs: 1,
        retry: { maxRetries: 2, baseDelayMs: 10, maxDelayMs: 20 },
      },
      { onEvent: (event) => events.push(event) },
    );
    const failure = await impatient
      .chat({ messages: counting, maxTokens: 4, temperature: 0 })
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: 'LlmRequestError', reason: 'timeout', attempts: 3 });
    expect(events.filter((event) => event.type === 'retry')).toHaveLength(2);
    // The server is still there for the next client.
    expect((await client().chat({ messages: counting, maxTokens: 2, temperature: 0 })).text).not.toBe(
      undefined,
    );
  });
});
