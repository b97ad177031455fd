// `request` against a real local HTTP server whose handler scripts each answer.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type HttpFailure, type HttpRequest, HttpRequestError, request } from './request';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A server whose handler gets each request with its number (0-based); returns its URL. */
async function serve(handler: (request: IncomingMessage, response: ServerResponse, count: number) => void) {
  let count = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => handler(req, res, count++));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
}

/** A URL nothing listens on. */
async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/x`;
}

const base = { method: 'GET', timeoutMs: 5000, maxResponseBytes: 1024 } as const;
const retryServerErrors = {
  maxRetries: 3,
  baseDelayMs: 10,
  maxDelayMs: 1000,
  jitter: 'none',
  sleep: async () => undefined,
  retryOn: (failure: HttpFailure) => failure.kind === 'network' || (failure.status ?? 0) >= 500,
} as const;

const failureOf = async <T>(options: HttpRequest<T>): Promise<HttpRequestError> => {
  const error = await request(options).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(HttpRequestError.isInstance(error)).toBe(true);
  return error as HttpRequestError;
};

describe('request', () => {
  it('returns a 2xx answer with its status, headers and body', async () => {
    const url = await serve((req, res) => {
      res.writeHead(201, { 'x-seen': req.method ?? '' }).end('made');
    });
    const response = await request({ ...base, method: 'POST', url, body: '{}' });
    expect(response.status).toBe(201);
    expect(response.headers.get('x-seen')).toBe('POST');
    expect(response.text()).toBe('made');
    expect(response.truncated).toBe(false);
  });

  it('retries a retryable status with backoff, then succeeds', async () => {
    const url = await serve((_req, res, count) => {
      if (count < 2) res.writeHead(503).end('busy');
      else res.writeHead(200).end('ok');
    });
    const delays: number[] = [];
    const response = await request({
      ...base,
      url,
      retry: { ...retryServerErrors, onRetry: ({ delayMs }) => void delays.push(delayMs) },
    });
    expect(response.text()).toBe('ok');
    expect(delays).toEqual([10, 20]);
  });

  it('does not retry what retryOn refuses, and says how it failed', async () => {
    let calls = 0;
    const url = await serve((_req, res) => {
      calls += 1;
      res.writeHead(400).end('{"detail":"bad"}');
    });
    const error = await failureOf({ ...base, url, retry: retryServerErrors });
    expect(calls).toBe(1);
    expect(error).toMatchObject({ kind: 'http', status: 400, attempts: 1, stop: 'not_retryable' });
    expect(error.response?.text()).toBe('{"detail":"bad"}');
    expect(error.message).toBe(`GET ${url} failed after 1 attempt: HTTP 400 Bad Request`);
  });

  it('gives up after maxRetries', async () => {
    const url = await serve((_req, res) => res.writeHead(500).end());
    const error = await failureOf({ ...base, url, retry: { ...retryServerErrors, maxRetries: 2 } });
    expect(error).toMatchObject({ kind: 'http', status: 500, attempts: 3, stop: 'out_of_retries' });
  });

  it('waits what Retry-After asks, and gives up when it is over maxDelayMs', async () => {
    const url = await serve((_req, res, count) => {
      if (count === 0) res.writeHead(429, { 'retry-after': '2' }).end();
      else if (count === 1) res.writeHead(429, { 'retry-after': '60' }).end();
      else res.writeHead(200).end('ok');
    });
    const delays: number[] = [];
    const retryOn = (failure: HttpFailure) => failure.status === 429;
    const error = await failureOf({
      ...base,
      url,
      retry: {
        ...retryServerErrors,
        maxDelayMs: 10_000,
        retryOn,
        honorRetryAfter: true,
        onRetry: ({ delayMs }) => void delays.push(delayMs),
      },
    });
    expect(delays).toEqual([2000]);
    expect(error).toMatchObject({ status: 429, attempts: 2, stop: 'wait_too_long', serverWaitMs: 60_000 });
    expect(error.message).toContain('(the server asked to wait 60000 ms)');
  });

  it('retries a refused connection as a network failure', async () => {
    const url = await closedPort();
    const error = await failureOf({ ...base, url, retry: { ...retryServerErrors, maxRetries: 1 } });
    expect(error).toMatchObject({ kind: 'network', code: 'ECONNREFUSED', attempts: 2 });
    expect(error.message).toBe(`GET ${url} failed after 2 attempts: network error ECONNREFUSED`);
  });

  it('fails an attempt that gets no answer within timeoutMs', async () => {
    const url = await serve(() => {
      // Never answers.
    });
    const error = await failureOf({ ...base, url, timeoutMs: 50 });
    expect(error).toMatchObject({ kind: 'timeout', attempts: 1 });
    expect(error.message).toBe(`GET ${url} failed after 1 attempt: no complete answer within 50 ms`);
  });

  it('refuses a 2xx body over maxResponseBytes, whether its length is declared or streamed', async () => {
    for (const declared of [true, false]) {
      const body = 'x'.repeat(64 * 1024);
      let calls = 0;
      const url = await serve((_req, res) => {
        calls += 1;
        res.writeHead(200, declared ? { 'content-length': String(body.length) } : {});
        for (let at = 0; at < body.length; at += 1024) res.write(body.slice(at, at + 1024));
        res.end();
      });
      const error = await failureOf({ ...base, url, retry: { ...retryServerErrors, retryOn: () => true } });
      expect(calls).toBe(1);
      expect(error).toMatchObject({ kind: 'too_large', status: 200, attempts: 1 });
      expect(error.message).toBe(
        `GET ${url} failed after 1 attempt: the response body is longer than maxResponseBytes=1024`,
      );
    }
  });

  it('reads a body of exactly maxResponseBytes', async () => {
    const url = await serve((_req, res) => res.writeHead(200).end('y'.repeat(1024)));
    expect((await request({ ...base, url })).body.byteLength).toBe(1024);
  });

  it('keeps the start of an error body over maxResponseBytes, marked as cut', async () => {
    const url = await serve((_req, res) => res.writeHead(502).end('e'.repeat(5000)));
    const error = await failureOf({ ...base, url });
    expect(error.response?.truncated).toBe(true);
    expect(error.response?.body.byteLength).toBe(1024);
  });

  it('makes what `read` throws a malformed answer, retried as retryOn says', async () => {
    const url = await serve((_req, res, count) => res.writeHead(200).end(count === 0 ? '{"cut' : '{"ok":1}'));
    const read = (response: { text(): string }) => JSON.parse(response.text()) as unknown;
    const error = await failureOf({ ...base, url, read });
    expect(error).toMatchObject({ kind: 'malformed', status: 200 });
    const value = await request({
      ...base,
      url,
      read,
      retry: { ...retryServerErrors, retryOn: (failure) => failure.kind === 'malformed' },
    });
    expect(value).toEqual({ ok: 1 });
  });

  it('stops at once when the caller aborts an attempt, without retrying', async () => {
    let calls = 0;
    const controller = new AbortController();
    const url = await serve(() => {
      calls += 1;
      controller.abort();
    });
    const error = await failureOf({
      ...base,
      url,
      signal: controller.signal,
      retry: { ...retryServerErrors, retryOn: () => true },
    });
    expect(error).toMatchObject({ kind: 'aborted', attempts: 1 });
    expect(calls).toBe(1);
  });

  it('stops when the caller aborts a wait between attempts', async () => {
    const url = await serve((_req, res) => res.writeHead(503).end());
    const controller = new AbortController();
    const error = await failureOf({
      ...base,
      url,
      signal: controller.signal,
      retry: {
        ...retryServerErrors,
        baseDelayMs: 60_000,
        maxDelayMs: 60_000,
        sleep: undefined,
        onRetry: () => controller.abort(),
      },
    });
    expect(error).toMatchObject({ kind: 'aborted', stop: 'aborted', status: 503, attempts: 1 });
    expect(error.message).toContain('(aborted while waiting to retry)');
  });

  it('runs each attempt through `schedule`', async () => {
    const url = await serve((_req, res, count) => res.writeHead(count === 0 ? 500 : 200).end());
    let scheduled = 0;
    await request({
      ...base,
      url,
      retry: retryServerErrors,
      schedule: (attempt) => {
        scheduled += 1;
        return attempt();
      },
    });
    expect(scheduled).toBe(2);
  });
});
