import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { createChatClient } from './chat-client';
import { LlmRequestError } from './errors';
import type { LlmEvent } from './transport';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

const completion = (content: string) => ({
  choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
});

/** A raw HTTP server whose handler decides each answer; returns its base URL. */
async function rawServer(
  handler: (request: IncomingMessage, response: ServerResponse, count: number) => void,
) {
  let count = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => handler(request, response, count++));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

function answer(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

const messages = [{ role: 'user' as const, content: 'hello' }];

describe('retries', () => {
  it('retries 429 and 500, honouring Retry-After, then succeeds', async () => {
    const baseUrl = await rawServer((_request, response, count) => {
      if (count === 0) answer(response, 429, { error: { message: 'slow down' } }, { 'retry-after': '2' });
      else if (count === 1) answer(response, 500, { error: { message: 'boom' } });
      else answer(response, 200, completion('finally'));
    });
    const delays: number[] = [];
    const events: LlmEvent[] = [];
    const client = createChatClient(
      { baseUrl, model: 'm', retry: { maxRetries: 3, baseDelayMs: 100, maxDelayMs: 10_000 } },
      { sleep: async (ms) => void delays.push(ms), onEvent: (event) => events.push(event) },
    );
    const response = await client.chat({ messages });
    expect(response.text).toBe('finally');
    expect(delays[0]).toBe(2000);
    expect(delays[1]).toBeGreaterThanOrEqual(0);
    expect(delays[1]).toBeLessThanOrEqual(200);
    expect(events.map((event) => [event.type, 'status' in event ? event.status : undefined])).toEqual([
      ['retry', 429],
      ['retry', 500],
    ]);
  });

  it('gives up after maxRetries with the endpoint, status and attempt count', async () => {
    const baseUrl = await rawServer((_request, response) =>
      answer(response, 503, { error: { message: 'overloaded' } }),
    );
    const client = createChatClient(
      { baseUrl, model: 'm', retry: { maxRetries: 2 } },
      { sleep: async () => undefined },
    );
    const error = (await client.chat({ messages }).catch((caught: unknown) => caught)) as LlmRequestError;
    expect(LlmRequestError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      reason: 'http',
      status: 503,
      attempts: 3,
      endpoint: `POST ${baseUrl}/chat/completions`,
    });
    expect(error.message).toBe(
      `POST ${baseUrl}/chat/completions failed after 3 attempts: HTTP 503 Service Unavailable: "overloaded". The server failed; see its logs.`,
    );
  });

  it('does not retry a 400', async () => {
    let calls = 0;
    const baseUrl = await rawServer((_request, response) => {
      calls += 1;
      answer(response, 400, { error: { message: 'bad request' } });
    });
    const client = createChatClient({ baseUrl, model: 'm' }, { sleep: async () => undefined });
    await expect(client.chat({ messages })).rejects.toMatchObject({ status: 400, attempts: 1 });
    expect(calls).toBe(1);
  });

  it('stops when Retry-After asks for longer than maxDelayMs', async () => {
    const baseUrl = await rawServer((_request, response) =>
      answer(response, 429, {}, { 'retry-after': '120' }),
    );
    const client = createChatClient(
      { baseUrl, model: 'm', retry: { maxDelayMs: 1000 } },
      { sleep: async () => undefined },
    );
    await expect(client.chat({ messages })).rejects.toThrow(
      /asked to wait 120000 ms, more than retry.maxDelayMs=1000/,
    );
  });

  // The first attempt hangs until its timeout; the limit leaves the answered retry room on a loaded machine.
  it('times out an attempt that gets no answer, and retries it', async () => {
    let calls = 0;
    const baseUrl = await rawServer((_request, response) => {
      calls += 1;
      if (calls === 1) return;
      answer(response, 200, completion('second time'));
    });
    const client = createChatClient(
      { baseUrl, model: 'm', timeoutMs: 1_500, retry: { maxRetries: 1 } },
      { sleep: async () => undefined },
    );
    expect((await client.chat({ messages })).text).toBe('second time');
  });

  it('reports a timeout when every attempt runs out of time', async () => {
    const baseUrl = await rawServer(() => undefined);
    const client = createChatClient(
      { baseUrl, model: 'm', timeoutMs: 50, retry: { maxRetries: 1 } },
      { sleep: async () => undefined },
    );
    const error = (await client.chat({ messages }).catch((caught: unknown) => caught)) as LlmRequestError;
    expect(error).toMatchObject({ name: 'LlmRequestError', reason: 'timeout', attempts: 2 });
    expect(error.message).toMatch(/no complete answer within timeoutMs=50\. Raise timeoutMs/);
  });

  it('stops at once when the caller aborts', async () => {
    const baseUrl = await rawServer(() => undefined);
    const client = createChatClient({ baseUrl, model: 'm' });
    const controller = new AbortController();
    const pending = client.chat({ messages }, { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ reason: 'aborted', attempts: 1 });
  });

  it('names a refused connection as a network failure after retrying it', async () => {
    const baseUrl = await rawServer(() => undefined);
    await closers.pop()!();
    const client = createChatClient(
      { baseUrl, model: 'm', retry: { maxRetries: 1 } },
      { sleep: async () => undefined },
    );
    await expect(client.chat({ messages })).rejects.toThrow(
      /failed after 2 attempts: network error ECONNREFUSED/,
    );
  });

  it('keeps requests in flight within maxConcurrency', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const held: ServerResponse[] = [];
    const total = 6;
    let received = 0;
    const baseUrl = await rawServer((_request, response) => {
      inFlight += 1;
      received += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      held.push(response);
      if (held.length === 2 || received === total) {
        for (const waiting of held.splice(0)) {
          inFlight -= 1;
          answer(waiting, 200, completion('ok'));
        }
      }
    });
    const client = createChatClient({ baseUrl, model: 'm', maxConcurrency: 2 });
    const results = await Promise.all(Array.from({ length: total }, () => client.chat({ messages })));
    expect(results).toHaveLength(total);
    expect(maxInFlight).toBe(2);
  });

  it('retries a 200 whose body is truncated JSON or has no choices, then succeeds', async () => {
    const baseUrl = await rawServer((_request, response, count) => {
      if (count === 0) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{"choices": [{"index": 0, "message": {"role": "assis');
      } else if (count === 1) answer(response, 200, { choices: [] });
      else answer(response, 200, completion('whole'));
    });
    const events: LlmEvent[] = [];
    const client = createChatClient(
      { baseUrl, model: 'm', retry: { maxRetries: 3 } },
      { sleep: async () => undefined, onEvent: (event) => events.push(event) },
    );
    expect((await client.chat({ messages })).text).toBe('whole');
    expect(events.map((event) => [event.type, 'reason' in event ? event.reason : undefined])).toEqual([
      ['retry', 'malformed'],
      ['retry', 'malformed'],
    ]);
  });

  it('gives up on replies that stay malformed with one message that says what came back', async () => {
    const baseUrl = await rawServer((_request, response) => answer(response, 200, { choices: [] }));
    const client = createChatClient(
      { baseUrl, model: 'm', retry: { maxRetries: 2 } },
      { sleep: async () => undefined },
    );
    const error = (await client.chat({ messages }).catch((caught: unknown) => caught)) as LlmRequestError;
    expect(error).toBeInstanceOf(LlmRequestError);
    expect(error.reason).toBe('malformed');
    expect(error.attempts).toBe(3);
    expect(error.message).toMatch(/failed after 3 attempts: body is not a chat completion \(choices: /);
    expect(error.message).not.toContain('above');
    expect(error.message.split('\n')).toHaveLength(1);
  });
});

describe('reply size cap', () => {
  const longCompletion = (bytes: number) => {
    const shell = JSON.stringify(completion('')).length;
    return JSON.stringify(completion('x'.repeat(bytes - shell)));
  };

  it('reads a reply of exactly maxReplyBytes', async () => {
    const body = longCompletion(4096);
    expect(Buffer.byteLength(body)).toBe(4096);
    const baseUrl = await rawServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(body);
    });
    const client = createChatClient({ baseUrl, model: 'm', maxReplyBytes: 4096 });
    expect((await client.chat({ messages })).text).toHaveLength(4096 - JSON.stringify(completion('')).length);
  });

  it('fails a 2xx reply over maxReplyBytes at once, whether its length is declared or streamed', async () => {
    for (const declared of [true, false]) {
      let calls = 0;
      const baseUrl = await rawServer((_request, response) => {
        calls += 1;
        const body = longCompletion(64 * 1024);
        response.writeHead(200, {
          'content-type': 'application/json',
          ...(declared ? { 'content-length': String(body.length) } : {}),
        });
        // Without a declared length the reply streams in chunks of 1 KiB.
        for (let at = 0; at < body.length; at += 1024) response.write(body.slice(at, at + 1024));
        response.end();
      });
      const events: LlmEvent[] = [];
      const client = createChatClient(
        { baseUrl, model: 'm', maxReplyBytes: 4096, retry: { maxRetries: 3 } },
        { sleep: async () => undefined, onEvent: (event) => events.push(event) },
      );
      const error = (await client.chat({ messages }).catch((caught: unknown) => caught)) as LlmRequestError;
      expect(LlmRequestError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ reason: 'too_large', status: 200, attempts: 1 });
      expect(error.message).toBe(
        `POST ${baseUrl}/chat/completions failed after 1 attempt: the reply is longer than maxReplyBytes=4096. Lower maxTokens, or raise maxReplyBytes if replies this long are expected.`,
      );
      expect(calls).toBe(1);
      expect(events.map((event) => event.type)).toEqual(['failure']);
    }
  });

  it('keeps retrying an error status whose body is over maxReplyBytes', async () => {
    const baseUrl = await rawServer((_request, response, count) => {
      if (count === 0) answer(response, 503, { error: { message: 'e'.repeat(10_000) } });
      else answer(response, 200, completion('recovered'));
    });
    const events: LlmEvent[] = [];
    const client = createChatClient(
      { baseUrl, model: 'm', maxReplyBytes: 4096 },
      { sleep: async () => undefined, onEvent: (event) => events.push(event) },
    );
    expect((await client.chat({ messages })).text).toBe('recovered');
    expect(events).toMatchObject([{ type: 'retry', reason: 'http', status: 503 }]);
  });

  it('says what was cut when an error status stays over maxReplyBytes', async () => {
    const baseUrl = await rawServer((_request, response) =>
      answer(response, 400, { error: { message: 'e'.repeat(10_000) } }),
    );
    const client = createChatClient({ baseUrl, model: 'm', maxReplyBytes: 4096 });
    await expect(client.chat({ messages })).rejects.toThrow(
      /failed after 1 attempt: HTTP 400 Bad Request: \(a body over maxReplyBytes=4096\)\. The server rejected/,
    );
  });
});

describe('API key handling', () => {
  const secret = 'sk-test-5f3c9a1b7d2e4f60';

  it('sends the key from the named environment variable', async () => {
    let seen: string | undefined;
    const baseUrl = await rawServer((request, response) => {
      seen = request.headers.authorization;
      answer(response, 200, completion('ok'));
    });
    const client = createChatClient(
      { baseUrl, model: 'm', apiKeyEnv: 'TEST_LLM_KEY' },
      { env: { TEST_LLM_KEY: secret } },
    );
    await client.chat({ messages });
    expect(seen).toBe(`Bearer ${secret}`);
  });

  it('never shows the key in errors, events or the client object, even when the server echoes it', async () => {
    const baseUrl = await rawServer((request, response) =>
      answer(response, 500, {
        error: { message: `bad auth header ${request.headers.authorization} (key ${secret})` },
      }),
    );
    const events: LlmEvent[] = [];
    const client = createChatClient(
      { baseUrl, model: 'm', apiKeyEnv: 'TEST_LLM_KEY', retry: { maxRetries: 1 } },
      { env: { TEST_LLM_KEY: secret }, sleep: async () => undefined, onEvent: (event) => events.push(event) },
    );
    const error = (await client.chat({ messages }).catch((caught: unknown) => caught)) as Error;
    expect(error.message).toContain('bad auth header Bearer [redacted] (key [redacted])');
    const everything = [
      error.message,
      String(error.stack),
      inspect(error, { depth: 10 }),
      JSON.stringify(error),
      JSON.stringify(events),
      inspect(client, { depth: 10, showHidden: true }),
      JSON.stringify(client),
    ].join('\n');
    expect(everything).not.toContain(secret);
    expect(everything).not.toContain(secret.slice(3));
  });

  it('refuses to start when the named variable is unset, naming the variable', () => {
    expect(() =>
      createChatClient(
        { baseUrl: 'http://127.0.0.1:1/v1', model: 'm', apiKeyEnv: 'MISSING_KEY' },
        { env: {} },
      ),
    ).toThrow(/Environment variable MISSING_KEY \(apiKeyEnv\) is not set/);
  });
});
