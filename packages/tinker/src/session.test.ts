// The session's handshake and heartbeat against a small scripted server; the heartbeat's timer is
// vitest's fake one, so ten seconds pass without waiting.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApiClient } from './api-client';
import { openSession } from './session';

let server: Server | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
});

async function skyrlLike(): Promise<{ baseUrl: string; seen: string[] }> {
  const seen: string[] = [];
  const answers: Record<string, unknown> = {
    '/api/v1/client/config': { pjwt_auth_enabled: false },
    '/api/v1/get_server_capabilities': { supported_models: [{ model_name: 'tiny' }] },
    '/api/v1/create_session': { type: 'create_session', session_id: 'session_1' },
    '/api/v1/session_heartbeat': { type: 'session_heartbeat' },
  };
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      seen.push(`${request.url} ${body}`);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answers[request.url ?? ''] ?? {}));
    });
  });
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
  return { baseUrl: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, seen };
}

const api = (baseUrl: string) =>
  createApiClient({
    baseUrl,
    apiKey: undefined,
    requestTimeoutMs: 5000,
    pollTimeoutMs: 5000,
    maxRetries: 0,
    maxConnectionRetries: 0,
    baseBackoffMs: 0,
    maxBackoffMs: 0,
    maxResponseBytes: 1024 * 1024,
    futureDeadlineMs: 5000,
  });

describe('openSession', () => {
  it('handshakes, creates the session and beats every heartbeatMs until closed', async () => {
    const { baseUrl, seen } = await skyrlLike();
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const session = await openSession(api(baseUrl), { baseModel: 'tiny', heartbeatMs: 10_000 });
    expect(session.id).toBe('session_1');
    expect(seen.map((line) => line.split(' ')[0])).toEqual([
      '/api/v1/client/config',
      '/api/v1/get_server_capabilities',
      '/api/v1/create_session',
    ]);
    const beats = () => seen.filter((line) => line.startsWith('/api/v1/session_heartbeat')).length;
    vi.advanceTimersByTime(9_999);
    vi.advanceTimersByTime(1);
    await vi.waitFor(() => expect(beats()).toBe(1));
    expect(seen.at(-1)).toContain('"session_id":"session_1"');
    vi.advanceTimersByTime(10_000);
    await vi.waitFor(() => expect(beats()).toBe(2));
    session.close();
    vi.advanceTimersByTime(60_000);
    expect(vi.getTimerCount()).toBe(0);
    expect(beats()).toBe(2);
  });

  it('refuses a base model the server does not serve, naming the ones it does', async () => {
    const { baseUrl } = await skyrlLike();
    await expect(
      openSession(api(baseUrl), { baseModel: 'Qwen/Qwen3-8B', heartbeatMs: 10_000 }),
    ).rejects.toThrow('The server does not serve base model "Qwen/Qwen3-8B"; it serves: "tiny"');
  });
});
