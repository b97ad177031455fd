// The chat-completions server over real HTTP: the OpenAI answer shapes, batching, streaming, the
// bearer key, bounded shutdown, and what it refuses of a hostile client or web page (raw sockets
// where the headers must be exactly what an attacker sends).
import { connect } from 'node:net';
import { ConfigError, InvalidArgumentError, type Policy } from '@pilotrl/core';
import { createScriptedPolicy } from '@pilotrl/env-testkit/test';
import { afterEach, describe, expect, it } from 'vitest';
import { createChatCompletionsServer } from './chat-completions-server';
import type { ChatCompletionResponse } from './openai-wire';

type ErrorBody = { error: { message: string } };

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A key long enough for the server (it takes 16 characters and more). */
const KEY = 'local-secret-key-0123';

async function start(
  options: { apiKeyEnv?: string; env?: Record<string, string>; maxConnectionsPerClient?: number } = {},
) {
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
    const notJson = await fetch(`${baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{oops',
    });
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
    const { baseUrl } = await start({ apiKeyEnv: 'SERVE_KEY', env: { SERVE_KEY: KEY } });
    const body = { model: 'tiny', messages: [{ role: 'user', content: 'x' }] };
    expect((await post(`${baseUrl}/chat/completions`, body)).status).toBe(401);
    expect((await post(`${baseUrl}/chat/completions`, body, { authorization: `Bearer ${KEY}` })).status).toBe(
      200,
    );
  });

  describe('hostile requests', () => {
    const chat = JSON.stringify({ model: 'tiny', messages: [{ role: 'user', content: 'x' }] });

    /**
     * Sends `head` (request line and headers, without the blank line) and `body` on a fresh socket,
     * exactly as written, and resolves with the status and body of the answer.
     */
    const raw = (baseUrl: string, head: string, body = '') =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const { port } = new URL(baseUrl);
        const socket = connect(Number(port), '127.0.0.1');
        let received = '';
        socket.setEncoding('utf8');
        socket.on('data', (chunk: string) => {
          received += chunk;
        });
        socket.on('error', reject);
        socket.on('end', () => {
          const split = received.indexOf('\r\n\r\n');
          resolve({
            status: Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0),
            body: split === -1 ? '' : received.slice(split + 4),
          });
        });
        const length = body === '' ? '' : `\r\ncontent-length: ${Buffer.byteLength(body)}`;
        socket.end(`${head}${length}\r\nconnection: close\r\n\r\n${body}`);
      });

    const errorOf = (body: string) =>
      (JSON.parse(body) as { error: { message: string; type: string; param: null; code: string | null } })
        .error;

    it('refuses a Host it does not answer to (DNS rebinding) with 403, without echoing it', async () => {
      const { baseUrl, policy } = await start();
      const answer = await raw(
        baseUrl,
        'POST /v1/chat/completions HTTP/1.1\r\nhost: attacker.example\r\ncontent-type: application/json',
        chat,
      );
      expect(answer.status).toBe(403);
      expect(errorOf(answer.body).type).toBe('invalid_request_error');
      expect(answer.body).not.toContain('attacker');
      expect(policy.requests).toHaveLength(0);
    });

    it('refuses a request from a web page whose Origin is not allowed with 403', async () => {
      const { baseUrl, policy } = await start();
      const answer = await raw(
        baseUrl,
        'POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\norigin: http://evil.example\r\ncontent-type: application/json',
        chat,
      );
      expect(answer.status).toBe(403);
      expect(errorOf(answer.body).message).toMatch(/origin/);
      expect(answer.body).not.toContain('evil');
      expect(policy.requests).toHaveLength(0);
    });

    it('answers a text/plain POST (sent cross-origin without a preflight) with 415 and never runs the policy', async () => {
      const { baseUrl, policy } = await start();
      const answer = await raw(
        baseUrl,
        'POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: text/plain;charset=UTF-8',
        chat,
      );
      expect(answer.status).toBe(415);
      expect(errorOf(answer.body)).toEqual({
        message: 'Send the body as Content-Type: application/json',
        type: 'invalid_request_error',
        param: null,
        code: null,
      });
      // A charset parameter on JSON is fine.
      const json = await raw(
        baseUrl,
        'POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json; charset=utf-8',
        chat,
      );
      expect(json.status).toBe(200);
      expect(policy.requests).toHaveLength(1);
    });

    it('answers a request target that is not a path with 400 and goes on serving', async () => {
      const { baseUrl } = await start();
      const answer = await raw(baseUrl, 'GET //[ HTTP/1.1\r\nhost: 127.0.0.1');
      expect(answer.status).toBe(400);
      expect(errorOf(answer.body).message).toBe('The request target is not a path');
      expect((await fetch(`${baseUrl}/models`)).status).toBe(200);
    });

    it('takes only the right bearer key, and answers a wrong one with an OpenAI-shaped 401', async () => {
      const { baseUrl } = await start({ apiKeyEnv: 'SERVE_KEY', env: { SERVE_KEY: KEY } });
      const head = (key: string) =>
        `POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\nauthorization: Bearer ${key}`;
      // Same length, one character off: a compare that stops early would still refuse it.
      const wrong = await raw(baseUrl, head(`${KEY.slice(0, -1)}X`), chat);
      expect(wrong.status).toBe(401);
      expect(errorOf(wrong.body)).toEqual({
        message: 'This server needs the header "Authorization: Bearer <token>" with its token',
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_api_key',
      });
      expect(wrong.body).not.toContain(KEY.slice(0, 8));
      expect((await raw(baseUrl, head(KEY), chat)).status).toBe(200);
    });

    it('refuses at creation a key shorter than 16 characters, naming the variable', () => {
      const policy = createScriptedPolicy(() => 'x');
      const create = () =>
        createChatCompletionsServer({
          policy,
          modelName: 'tiny',
          apiKeyEnv: 'SHORT_KEY',
          env: { SHORT_KEY: 'local-secret' },
        });
      expect(create).toThrow(ConfigError);
      expect(create).toThrow(/SHORT_KEY has 12 characters; use at least 16/);
    });

    it('answers an unexpected failure with 500 whose body has none of its message, and logs the cause', async () => {
      const lines: string[] = [];
      const policy: Policy = {
        name: 'broken',
        version: 0,
        async generate() {
          throw new Error('secret internal detail /etc/x');
        },
      };
      const server = createChatCompletionsServer({
        policy,
        modelName: 'tiny',
        log: (line) => lines.push(line),
      });
      const baseUrl = await server.listen();
      closers.push(() => server.close());
      const response = await post(`${baseUrl}/chat/completions`, JSON.parse(chat));
      expect(response.status).toBe(500);
      const text = await response.text();
      expect(text).not.toContain('secret');
      expect(text).not.toContain('/etc/x');
      expect(errorOf(text)).toMatchObject({
        message: 'The server failed on this request; its log has the cause',
        type: 'server_error',
      });
      expect(lines.join('\n')).toContain('secret internal detail /etc/x');
    });

    it('closes a connection past maxConnectionsPerClient before reading it', async () => {
      const { baseUrl } = await start({ maxConnectionsPerClient: 1 });
      const { port } = new URL(baseUrl);
      // One keep-alive connection, answered, so the server has counted it.
      const held = connect(Number(port), '127.0.0.1');
      held.on('error', () => undefined);
      const answered = new Promise<string>((resolve) => held.once('data', (chunk) => resolve(String(chunk))));
      held.write('GET /v1/models HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
      expect(await answered).toMatch(/^HTTP\/1\.1 200/);
      const second = await raw(baseUrl, 'GET /v1/models HTTP/1.1\r\nhost: 127.0.0.1').catch(() => ({
        status: 0,
        body: '',
      }));
      expect(second.status).toBe(0);
      held.destroy();
    });
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
