import { InvalidArgumentError, type Policy } from '@pilotrl/core';
import { createScriptedPolicy } from '@pilotrl/env-testkit/test';
import { afterEach, describe, expect, it } from 'vitest';
import { createChatCompletionsServer } from './chat-completions-server';
import type { ChatCompletionResponse } from './openai-wire';

type ErrorBody = { error: { message: string } };

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function start(options: { apiKeyEnv?: string; env?: Record<string, string> } = {}) {
  const policy = createScriptedPolicy((_request, call) => `answer ${call}. END rest`, { version: 5 });
  const server = createChatCompletionsServer({ policy, modelName: 'tiny', maxBodyBytes: 2000, ...options });
  const baseUrl = await server.listen();
  closers.push(() => server.close());
  return { baseUrl, policy };
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

describe('chat-completions server', () => {
  it('answers in the OpenAI shape with logprobs, stop_reason, token ids and n samples', async () => {
    const { baseUrl, policy } = await start();
    const response = await post(`${baseUrl}/chat/completions`, {
      model: 'tiny',
      messages: [
        { role: 'developer', content: 'be brief' },
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      ],
      stop: ' END',
      logprobs: true,
      n: 2,
      seed: 10,
      return_token_ids: true,
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as ChatCompletionResponse & {
      object: string;
      usage: { prompt_tokens: number };
      prompt_token_ids: number[];
      choices: { logprobs: { content: unknown[] }; token_ids: number[] }[];
    };
    expect(body.object).toBe('chat.completion');
    expect(body.choices.map((choice) => choice.message.content)).toEqual(['answer 0.', 'answer 1.']);
    expect(body.choices[0]!.stop_reason).toBe(' END');
    expect(body.choices[0]!.finish_reason).toBe('stop');
    expect(body.choices[0]!.token_ids).toHaveLength('answer 0. END'.length);
    expect(body.choices[0]!.logprobs.content[0]).toEqual({
      token: 'token_id:97',
      logprob: 0,
      bytes: null,
      top_logprobs: [],
    });
    expect(body.prompt_token_ids.length).toBe(body.usage.prompt_tokens);
    expect(policy.requests.map((request) => request.seed)).toEqual([10, 11]);
    expect(policy.requests[0]!.messages[0]).toEqual({ role: 'system', content: 'be brief' });
  });

  it('names an address it cannot listen on in one line', async () => {
    const { baseUrl } = await start();
    const port = Number(new URL(baseUrl).port);
    const policy = createScriptedPolicy(() => 'x');
    const busy = createChatCompletionsServer({ policy, modelName: 'tiny' });
    await expect(busy.listen(port, '127.0.0.1')).rejects.toThrow(
      new InvalidArgumentError(
        `cannot listen on 127.0.0.1:${port}: the port is in use (choose another, or 0 for a free one)`,
      ),
    );
    await expect(busy.listen(0, '256.1.1.1')).rejects.toThrow(/^cannot listen on 256\.1\.1\.1:0: E[A-Z]+/);
  });

  it('rejects invalid requests with 400 and a message naming the field', async () => {
    const { baseUrl } = await start();
    const cases: [unknown, RegExp][] = [
      [{ model: 'tiny', messages: [] }, /messages: Too small/],
      [{ model: 'tiny', messages: [{ role: 'user', content: 'x' }], temperature: 9 }, /temperature/],
      [{ model: 'tiny', messages: [{ role: 'user', content: 'x' }], n: 0 }, /n: Too small/],
      [{ model: 'tiny', messages: [{ role: 'user', content: 'x' }], top_logprobs: 5 }, /top_logprobs/],
    ];
    for (const [body, pattern] of cases) {
      const response = await post(`${baseUrl}/chat/completions`, body);
      expect(response.status).toBe(400);
      expect(((await response.json()) as ErrorBody).error.message).toMatch(pattern);
    }
    const notJson = await fetch(`${baseUrl}/chat/completions`, { method: 'POST', body: '{oops' });
    expect(notJson.status).toBe(400);
    const tooLarge = await post(`${baseUrl}/chat/completions`, {
      model: 'tiny',
      messages: [{ role: 'user', content: 'x'.repeat(5000) }],
    });
    expect(tooLarge.status).toBe(413);
  });

  it('fails only the request the policy rejects when it shares a batch with others, and with 400', async () => {
    const scripted = createScriptedPolicy(() => 'fine');
    const batchSizes: number[] = [];
    let server: ReturnType<typeof createChatCompletionsServer> | undefined;
    let firstStarted: () => void = () => undefined;
    const started = new Promise<void>((resolve) => {
      firstStarted = resolve;
    });
    const policy: Policy = {
      name: 'picky',
      version: 0,
      async generate(requests) {
        batchSizes.push(requests.length);
        if (batchSizes.length === 1) {
          firstStarted();
          while ((server?.queued ?? 0) < 2) await new Promise((resolve) => setImmediate(resolve));
        }
        if (requests.some((request) => request.messages[0]!.content === 'too long')) {
          throw new InvalidArgumentError('prompt of 900 tokens does not fit the context of 128');
        }
        return scripted.generate(requests);
      },
    };
    server = createChatCompletionsServer({ policy, modelName: 'tiny' });
    const baseUrl = await server.listen();
    closers.push(() => server!.close());
    const body = (content: string) => ({ model: 'tiny', messages: [{ role: 'user', content }] });
    const first = post(`${baseUrl}/chat/completions`, body('first'));
    await started;
    const [good, bad] = await Promise.all([
      post(`${baseUrl}/chat/completions`, body('good')),
      post(`${baseUrl}/chat/completions`, body('too long')),
    ]);
    expect((await first).status).toBe(200);
    expect(good.status).toBe(200);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as ErrorBody).error.message).toBe(
      'The policy rejected the request: prompt of 900 tokens does not fit the context of 128',
    );
    expect(batchSizes).toEqual([1, 2, 1, 1]);
  });

  it('streams the completion as server-sent chunks ending in [DONE]', async () => {
    const { baseUrl } = await start();
    const response = await post(`${baseUrl}/chat/completions`, {
      model: 'tiny',
      messages: [{ role: 'user', content: 'hi' }],
      stop: [' END'],
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = (await response.text()).split('\n\n').filter((line) => line.length > 0);
    expect(events.at(-1)).toBe('data: [DONE]');
    const chunks = events.slice(0, -1).map(
      (event) =>
        JSON.parse(event.replace(/^data: /, '')) as {
          object: string;
          choices: { delta: { content?: string }; finish_reason: string | null }[];
          usage?: { completion_tokens: number };
        },
    );
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('answer 0.');
    expect(chunks.map((chunk) => chunk.choices[0]?.finish_reason ?? null)).toEqual([
      null,
      null,
      'stop',
      null,
    ]);
    expect(chunks.at(-1)!.usage!.completion_tokens).toBe('answer 0. END'.length);
  });

  it('lists its model and answers unknown routes with 404', async () => {
    const { baseUrl } = await start();
    const models = (await (await fetch(`${baseUrl}/models`)).json()) as { data: { id: string }[] };
    expect(models.data.map((model) => model.id)).toEqual(['tiny']);
    expect((await fetch(`${baseUrl}/completions`)).status).toBe(404);
  });

  it('requires the bearer key when apiKeyEnv is set', async () => {
    const { baseUrl } = await start({ apiKeyEnv: 'SERVE_KEY', env: { SERVE_KEY: 'local-secret' } });
    const body = { model: 'tiny', messages: [{ role: 'user', content: 'x' }] };
    expect((await post(`${baseUrl}/chat/completions`, body)).status).toBe(401);
    expect(
      (await post(`${baseUrl}/chat/completions`, body, { authorization: 'Bearer local-secret' })).status,
    ).toBe(200);
  });

  describe('close', () => {
    const body = { model: 'tiny', messages: [{ role: 'user', content: 'x' }] };
    /** A policy whose generations wait until `release()`; `started` resolves at the first one. */
    const gatedPolicy = () => {
      let release: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      let markStarted: () => void = () => undefined;
      const started = new Promise<void>((resolve) => {
        markStarted = resolve;
      });
      const scripted = createScriptedPolicy(() => 'done');
      const policy: Policy = {
        name: 'gated',
        version: 0,
        async generate(requests) {
          markStarted();
          await gate;
          return scripted.generate(requests);
        },
      };
      return { policy, started, release };
    };

    it('cuts a request whose generation never finishes at shutdownTimeoutMs', async () => {
      const { policy, started } = gatedPolicy();
      const server = createChatCompletionsServer({ policy, modelName: 'tiny', shutdownTimeoutMs: 200 });
      const baseUrl = await server.listen();
      closers.push(() => server.close());
      const hung = post(`${baseUrl}/chat/completions`, body);
      await started;
      await server.close();
      await expect(hung).rejects.toThrow();
    });

    it('lets a request in flight finish, ends its keep-alive connection and refuses new ones', async () => {
      const { policy, started, release } = gatedPolicy();
      // A deadline past the test's timeout: the close can only resolve by the connections ending.
      const server = createChatCompletionsServer({ policy, modelName: 'tiny', shutdownTimeoutMs: 600_000 });
      const baseUrl = await server.listen();
      closers.push(() => server.close());
      // A finished request leaves an idle keep-alive connection behind.
      expect((await fetch(`${baseUrl}/models`)).status).toBe(200);
      const inFlight = post(`${baseUrl}/chat/completions`, body);
      await started;
      const closed = server.close();
      await expect(fetch(`${baseUrl}/models`)).rejects.toThrow();
      release();
      const response = await inFlight;
      expect(response.status).toBe(200);
      expect(response.headers.get('connection')).toBe('close');
      expect(((await response.json()) as ChatCompletionResponse).choices[0]!.message.content).toBe('done');
      await closed;
      expect(server.close()).toBe(closed);
    });
  });
});
