// The HTTP client against a small scripted HTTP server, for the answers SkyRL does not give on
// demand (429, 410, try_again, a 5xx that persists, a future that never finishes).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TimeoutError } from '@pilotrl/core';
import { afterEach, describe, expect, it } from 'vitest';
import { type ApiSettings, createApiClient } from './api-client';
import { TinkerFutureError, TinkerRequestError } from './errors';

type Reply = { status: number; body: string; contentType?: string } | 'hold';

let server: Server | undefined;
const held: ServerResponse[] = [];

/** Serves each path's replies in order (the last one repeats); returns the base URL and the request log. */
async function serve(replies: Record<string, Reply[]>): Promise<{ baseUrl: string; seen: string[] }> {
  const seen: string[] = [];
  const counts = new Map<string, number>();
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const path = request.url ?? '';
      seen.push(`${path} ${body}`);
      const list = replies[path] ?? [{ status: 404, body: '{"detail":"Not Found"}' }];
      const n = counts.get(path) ?? 0;
      counts.set(path, n + 1);
      const reply = list[Math.min(n, list.length - 1)]!;
      if (reply === 'hold') {
        held.push(response);
        return;
      }
      response.writeHead(reply.status, { 'content-type': reply.contentType ?? 'application/json' });
      response.end(reply.body);
    });
  });
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
  return { baseUrl: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, seen };
}

afterEach(async () => {
  for (const response of held.splice(0)) response.destroy();
  await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
  server = undefined;
});

const settings = (baseUrl: string, extra: Partial<ApiSettings> = {}): ApiSettings => ({
  baseUrl,
  apiKey: undefined,
  requestTimeoutMs: 5000,
  pollTimeoutMs: 5000,
  maxRetries: 2,
  maxConnectionRetries: 2,
  baseBackoffMs: 1,
  maxBackoffMs: 5,
  maxResponseBytes: 1024 * 1024,
  futureDeadlineMs: 10_000,
  ...extra,
});

const ok = (value: unknown): Reply => ({ status: 200, body: JSON.stringify(value) });
const submitTo = (api: ReturnType<typeof createApiClient>) => async () =>
  String(((await api.postJson('/api/v1/optim_step', { seq_id: 1 })) as { request_id: string }).request_id);

describe('futures', () => {
  it('waits out 429 and try_again, then returns the result', async () => {
    const { baseUrl, seen } = await serve({
      '/api/v1/optim_step': [ok({ request_id: '3' })],
      '/api/v1/retrieve_future': [
        { status: 429, body: '{"detail":"slow down"}' },
        ok({ type: 'try_again', queue_state: 'paused_capacity' }),
        ok({ metrics: { 'skyrl.ai/grad_norm': 1.5 } }),
      ],
    });
    const api = createApiClient(settings(baseUrl));
    const result = await api.runFuture('optim_step', submitTo(api), { protobuf: false });
    expect(JSON.parse(new TextDecoder().decode(result.body))).toEqual({
      metrics: { 'skyrl.ai/grad_norm': 1.5 },
    });
    expect(seen.filter((line) => line.startsWith('/api/v1/retrieve_future'))).toHaveLength(3);
    expect(seen.at(-1)).toContain('"request_id":"3"');
  });

  it('submits the original request again after 410 (its promise expired)', async () => {
    const { baseUrl, seen } = await serve({
      '/api/v1/optim_step': [ok({ request_id: '3' }), ok({ request_id: '4' })],
      '/api/v1/retrieve_future': [{ status: 410, body: '{"detail":"expired"}' }, ok({ metrics: {} })],
    });
    const api = createApiClient(settings(baseUrl));
    await api.runFuture('optim_step', submitTo(api), { protobuf: false });
    expect(seen.filter((line) => line.startsWith('/api/v1/optim_step'))).toHaveLength(2);
    expect(seen.at(-1)).toContain('"request_id":"4"');
  });

  it('gives up on a result the server fails on every time, as a retryable error quoting it', async () => {
    const { baseUrl } = await serve({
      '/api/v1/optim_step': [ok({ request_id: '3' })],
      '/api/v1/retrieve_future': [{ status: 500, body: 'Internal Server Error', contentType: 'text/plain' }],
    });
    const api = createApiClient(settings(baseUrl));
    const error = await api
      .runFuture('optim_step', submitTo(api), { protobuf: false })
      .catch((e: unknown) => e);
    expect(TinkerRequestError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 500, retryable: true, attempts: 3 });
    expect((error as Error).message).toMatch(/optim_step \(request 3\): Internal Server Error/);
  });

  it("reports the server's error of a failed request", async () => {
    const { baseUrl } = await serve({
      '/api/v1/optim_step': [ok({ request_id: '3' })],
      '/api/v1/retrieve_future': [ok({ error: 'adapter not loaded', category: 'user' })],
    });
    const api = createApiClient(settings(baseUrl));
    await expect(api.runFuture('optim_step', submitTo(api), { protobuf: false })).rejects.toSatisfy(
      (error) => TinkerFutureError.isInstance(error) && /adapter not loaded/.test((error as Error).message),
    );
  });

  it('stops waiting at the deadline for a future that never finishes', async () => {
    const { baseUrl } = await serve({
      '/api/v1/optim_step': [ok({ request_id: '3' })],
      '/api/v1/retrieve_future': [{ status: 408, body: '{"detail":"Timeout waiting for result"}' }],
    });
    const api = createApiClient(settings(baseUrl, { futureDeadlineMs: 300 }));
    await expect(api.runFuture('optim_step', submitTo(api), { protobuf: false })).rejects.toSatisfy(
      (error) => TimeoutError.isInstance(error) && /futureDeadlineMs=300/.test((error as Error).message),
    );
  });

  it('ends a long poll when the caller aborts', async () => {
    const { baseUrl } = await serve({
      '/api/v1/optim_step': [ok({ request_id: '3' })],
      '/api/v1/retrieve_future': ['hold'],
    });
    const api = createApiClient(settings(baseUrl));
    const controller = new AbortController();
    const running = api.runFuture('optim_step', submitTo(api), {
      protobuf: false,
      signal: controller.signal,
    });
    while (held.length === 0) await new Promise((done) => setTimeout(done, 5));
    controller.abort();
    await expect(running).rejects.toMatchObject({ reason: 'aborted', retryable: false });
  });
});

describe('submissions', () => {
  it('retries 503 and succeeds', async () => {
    const { baseUrl, seen } = await serve({
      '/api/v1/create_session': [
        { status: 503, body: '' },
        { status: 503, body: '' },
        ok({ session_id: 's' }),
      ],
    });
    const api = createApiClient(settings(baseUrl));
    expect(await api.postJson('/api/v1/create_session', {})).toEqual({ session_id: 's' });
    expect(seen).toHaveLength(3);
  });

  it("does not retry a rejected request, and quotes FastAPI's validation detail", async () => {
    const detail = [{ loc: ['body', 'lora_config', 'rank'], msg: 'Field required', type: 'missing' }];
    const { baseUrl, seen } = await serve({
      '/api/v1/create_model': [{ status: 422, body: JSON.stringify({ detail }) }],
    });
    const api = createApiClient(settings(baseUrl));
    const error = await api.postJson('/api/v1/create_model', {}).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 422, retryable: false, attempts: 1 });
    expect((error as Error).message).toContain('body.lora_config.rank: Field required');
    expect(seen).toHaveLength(1);
  });

  it('refuses an answer over maxResponseBytes without retrying it', async () => {
    const { baseUrl, seen } = await serve({
      '/api/v1/get_info': [ok({ model_data: 'x'.repeat(2000) })],
    });
    const api = createApiClient(settings(baseUrl, { maxResponseBytes: 1000 }));
    const error = await api.postJson('/api/v1/get_info', {}).catch((e: unknown) => e);
    expect(TinkerRequestError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ reason: 'too_large', retryable: false, attempts: 1 });
    expect((error as Error).message).toContain('the answer is longer than maxResponseBytes=1000');
    expect(seen).toHaveLength(1);
  });

  it('reports a server that is not there as unreachable and retryable', async () => {
    const { baseUrl } = await serve({});
    await new Promise<void>((done) => server!.close(() => done()));
    server = undefined;
    const api = createApiClient(settings(baseUrl));
    await expect(api.getJson('/api/v1/get_server_capabilities')).rejects.toMatchObject({
      reason: 'unreachable',
      retryable: true,
      attempts: 3,
    });
  });
});
