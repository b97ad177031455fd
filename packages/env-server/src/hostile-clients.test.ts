// Clients that misbehave without sending bad input: one whose socket stays open but answers nothing
// (a half-open connection), one that names another host or comes from a web page, one without the
// token, and a server shutting down under them. The raw-socket attacks on a whole `pilotrl serve-env` process are in
// the app's adversarial suite (`pnpm test:adversarial`).
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startServer } from './served-envs.testing';

const servers: Awaited<ReturnType<typeof startServer>>[] = [];
afterEach(async () => {
  for (const api of servers.splice(0)) await api.server.close();
});

describe('hostile clients', () => {
  it('cuts a WebSocket that answers no ping, and frees its session', async () => {
    const api = await startServer({ limits: { heartbeatMs: 50 } });
    servers.push(api);
    const socket = new WebSocket(`${api.url.replace(/^http/, 'ws')}/openenv/maze/ws`, { autoPong: false });
    await new Promise((resolve) => socket.once('open', resolve));
    expect(api.server.metrics().sessions.open).toBe(1);
    const code = await new Promise<number>((resolve) => socket.once('close', resolve));
    expect(code).toBe(1006);
    while (api.server.metrics().sessions.open > 0) await new Promise((resolve) => setImmediate(resolve));
    expect(api.server.metrics().errors.by_kind).toMatchObject({ openenv_heartbeat_lost: 1 });
  });

  it('keeps a WebSocket that answers its pings', async () => {
    const api = await startServer({ limits: { heartbeatMs: 20 } });
    servers.push(api);
    const socket = new WebSocket(`${api.url.replace(/^http/, 'ws')}/openenv/maze/ws`);
    await new Promise((resolve) => socket.once('open', resolve));
    let pings = 0;
    await new Promise<void>((resolve) =>
      socket.on('ping', () => {
        pings += 1;
        if (pings === 5) resolve();
      }),
    );
    expect(socket.readyState).toBe(WebSocket.OPEN);
    socket.close();
  });

  it('refuses an upgrade from a web page or for another host before it opens a session', async () => {
    const api = await startServer();
    servers.push(api);
    const url = `${api.url.replace(/^http/, 'ws')}/openenv/maze/ws`;
    for (const headers of [{ Origin: 'http://evil.example' }, { Host: 'attacker.example' }]) {
      const socket = new WebSocket(url, { headers });
      const status = await new Promise<number>((resolve) =>
        socket.once('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0)),
      );
      expect(status).toBe(403);
    }
    expect(api.server.metrics().sessions.open).toBe(0);
    expect(api.server.metrics().errors.by_kind).toMatchObject({ bad_origin: 1, bad_host: 1 });
  });

  it('needs the bearer token on every route when one is set', async () => {
    const token = 'a-long-enough-test-token';
    const api = await startServer({ security: { token } });
    servers.push(api);
    expect((await fetch(`${api.url}/health`)).status).toBe(401);
    const ok = await fetch(`${api.url}/health`, { headers: { authorization: `Bearer ${token}` } });
    expect(ok.status).toBe(200);
    const socket = new WebSocket(`${api.url.replace(/^http/, 'ws')}/ws`);
    const status = await new Promise<number>((resolve) =>
      socket.once('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0)),
    );
    expect(status).toBe(401);
  });

  it('closes WebSockets with a close frame (1001) when it shuts down, not by dropping them', async () => {
    const api = await startServer();
    const socket = new WebSocket(`${api.url.replace(/^http/, 'ws')}/openenv/maze/ws`);
    await new Promise((resolve) => socket.once('open', resolve));
    const closeCode = new Promise<number>((resolve) => socket.once('close', resolve));
    await api.server.close({ timeoutMs: 1000 });
    expect(await closeCode).toBe(1001);
  });
});
