// `pilotrl serve-env` against a hostile client and a hostile web page, as a separate process bound
// to loopback: every attack below once made the server die, leak a file, serve a page, grow without
// bound or drop clients. Each is replayed over raw sockets, bounded in count and time, while a
// well-behaved client (another loopback address, 127.0.0.2) is served within a latency bound, and the
// server must end near the memory it started with.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFrame, httpRequest, openSocket, openWebSocket, rawExchange, statusOf } from './raw-client';

const appDir = join(import.meta.dirname, '..');
const bin = join(appDir, 'src', 'bin.ts');
const WELL_BEHAVED = '127.0.0.2';
/** How long the well-behaved client may wait for an answer while the attacks run. */
const LATENCY_BOUND_MS = 3000;
/** How far above its starting memory the server may end. */
const MEMORY_BOUND_MB = 150;

interface ServerProcess {
  child: ChildProcess;
  port: number;
  stderr(): string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function startServer(): Promise<ServerProcess> {
  const child = spawn(
    process.execPath,
    [
      '--conditions=@pilotrl/source',
      '--import',
      'tsx',
      bin,
      'serve-env',
      '--env',
      'alfworld,maze,wordle',
      '--port',
      '0',
    ],
    { cwd: appDir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk).slice(-20_000);
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve-env did not start:\n${stderr}`)), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk;
      const match = / at http:\/\/127\.0\.0\.1:(\d+)/.exec(stdout);
      if (match !== null) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    void exit.then(() => reject(new Error(`serve-env exited at start:\n${stderr}`)));
  });
  return { child, port, stderr: () => stderr, exit };
}

const rssMb = (pid: number) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

let server: ServerProcess;
const latencies: number[] = [];
let startRss = 0;

/** The well-behaved client: a health check and a Maze step, each timed. */
async function wellBehaved(): Promise<void> {
  const started = Date.now();
  const health = await rawExchange(server.port, httpRequest('GET', '/health'), {
    localAddress: WELL_BEHAVED,
  });
  expect(statusOf(health.reply), health.reply.slice(0, 200)).toBe(200);
  const body = JSON.stringify({ seed: 1, action: { action: 'move up' } });
  const step = await rawExchange(
    server.port,
    httpRequest('POST', '/openenv/maze/step', { 'Content-Type': 'application/json' }, body),
    { localAddress: WELL_BEHAVED },
  );
  expect(statusOf(step.reply)).toBe(200);
  latencies.push(Date.now() - started);
  expect(Date.now() - started).toBeLessThan(LATENCY_BOUND_MS);
}

beforeAll(async () => {
  server = await startServer();
  await wellBehaved();
  startRss = rssMb(server.child.pid!);
}, 90_000);

afterAll(async () => {
  if (server.child.exitCode === null) {
    server.child.kill('SIGKILL');
    await server.exit;
  }
});

describe('pilotrl serve-env under attack', () => {
  it('answers malformed request targets 400, with or without an upgrade, and stays up', async () => {
    const upgrade = await rawExchange(
      server.port,
      'GET //[ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: x\r\n\r\n',
    );
    expect(statusOf(upgrade.reply)).toBe(400);
    for (const target of ['//[', 'http://evil.example/x', '*', '/%00/x']) {
      const { reply } = await rawExchange(server.port, httpRequest('GET', target));
      expect([400, 404]).toContain(statusOf(reply));
      expect(reply).not.toMatch(/Internal error|at .*\.ts:\d+/);
    }
    expect(server.child.exitCode).toBeNull();
    await wellBehaved();
  });

  it('treats task ids as ids: no file is opened, read, or quoted, over HTTP or the WebSocket', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'adversarial-'));
    const fifo = join(scratch, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const hostname = readFileSync('/etc/hostname', 'utf8').trim();
    try {
      for (const taskId of [
        '/etc/shadow',
        '/etc/hostname',
        '/proc/self/environ',
        '/dev/zero',
        fifo,
        '../../../etc/passwd',
      ]) {
        const body = JSON.stringify({ task_id: taskId });
        const { reply } = await rawExchange(
          server.port,
          httpRequest('POST', '/openenv/alfworld/reset', { 'Content-Type': 'application/json' }, body),
        );
        expect(statusOf(reply), taskId).toBe(422);
        expect(reply).toContain('unknown ALFWorld task id');
        expect(reply).not.toMatch(/root:|PATH=/);
        if (hostname.length >= 4) expect(reply.split('\r\n\r\n')[1]).not.toContain(hostname);
      }
      const { ws } = await openWebSocket(server.port, '/openenv/alfworld/ws');
      ws!.send(JSON.stringify({ type: 'reset', data: { task_id: '/dev/zero' } }));
      const answer = await ws!.next();
      expect(JSON.parse(answer!.payload.toString())).toMatchObject({
        type: 'error',
        data: { message: expect.stringMatching(/unknown ALFWorld task id/) },
      });
      ws!.socket.destroy();
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
    await wellBehaved();
  });

  it('refuses web pages and rebinding names: a foreign Origin or Host, over HTTP and the WebSocket', async () => {
    const foreign: Record<string, string>[] = [
      { Origin: 'http://evil.example' },
      { Host: 'attacker.example' },
      { Origin: 'null' },
    ];
    for (const headers of foreign) {
      const upgrade = await openWebSocket(server.port, '/openenv/alfworld/ws', { headers });
      expect(upgrade.status).toBe(403);
      const { reply } = await rawExchange(
        server.port,
        httpRequest('GET', '/openenv/alfworld/state', headers),
      );
      expect(statusOf(reply)).toBe(403);
      const post = await rawExchange(
        server.port,
        httpRequest('POST', '/maze/create', { ...headers, 'Content-Type': 'text/plain' }, '{}'),
      );
      expect(statusOf(post.reply)).toBe(403);
    }
    await wellBehaved();
  });

  it('echoes no oversized input, and cuts a client that leaves its replies unread', async () => {
    const { ws } = await openWebSocket(server.port, '/openenv/maze/ws');
    ws!.send(JSON.stringify({ type: 'x'.repeat(500_000) }));
    const unknown = await ws!.next();
    expect(unknown!.payload.length).toBeLessThan(1000);
    // Stop reading, then ask for Maze openings (about 3 KB each), a queue's worth at a time, until
    // the replies waiting for this client pass the server's bound (8 MiB beyond the kernel's buffers).
    ws!.socket.pause();
    let cut = false;
    ws!.socket.once('close', () => {
      cut = true;
    });
    const reset = clientFrame(Buffer.from(JSON.stringify({ type: 'reset', data: { seed: 1 } })));
    const deadline = Date.now() + 30_000;
    while (!cut && Date.now() < deadline) {
      for (let i = 0; i < 60; i++) ws!.socket.write(reset);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(cut).toBe(true);
    await wellBehaved();
  }, 60_000);

  it('cuts an unfinished fragmented message past the size limit instead of holding it', async () => {
    const { ws } = await openWebSocket(server.port, '/openenv/maze/ws');
    // A first fragment that announces 4 MiB and never finishes.
    ws!.socket.write(clientFrame(Buffer.alloc(0), { fin: false, length: 4 * 1024 * 1024 }).subarray(0, 14));
    ws!.socket.write(Buffer.alloc(256 * 1024));
    await ws!.closed();
    expect([1009, undefined]).toContain(ws!.closeCode());
    await wellBehaved();
  });

  it("keeps one client's sessions from another: ids are not counted, a foreign id is not valid", async () => {
    const create = await rawExchange(server.port, httpRequest('POST', '/maze/create'));
    const { id } = JSON.parse(create.reply.split('\r\n\r\n')[1]!) as { id: number };
    for (let guess = 0; guess < 50; guess++) {
      const { reply } = await rawExchange(
        server.port,
        httpRequest(
          'POST',
          '/maze/close',
          { 'Content-Type': 'application/json' },
          JSON.stringify({ id: guess }),
        ),
        { localAddress: WELL_BEHAVED },
      );
      expect(reply).toContain('is not valid');
    }
    const foreign = await rawExchange(
      server.port,
      httpRequest('POST', '/maze/close', { 'Content-Type': 'application/json' }, JSON.stringify({ id })),
      { localAddress: WELL_BEHAVED },
    );
    expect(foreign.reply).toContain(`The id ${id} is not valid.`);
    const own = await rawExchange(
      server.port,
      httpRequest('POST', '/maze/close', { 'Content-Type': 'application/json' }, JSON.stringify({ id })),
    );
    expect(own.reply.endsWith('true')).toBe(true);
  });

  it('caps sessions and connections per client: a flood from one address leaves others served', async () => {
    const agent = { Connection: 'keep-alive' };
    const socket = await openSocket(server.port);
    let refused = 0;
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk;
    });
    for (let i = 0; i < 300; i++) socket.write(httpRequest('POST', '/wordle/create', agent));
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if ((received.match(/HTTP\/1\.1 200/g) ?? []).length >= 300) {
          clearInterval(check);
          resolve();
        }
      }, 20);
    });
    refused = (received.match(/This client has \d+ of \d+ sessions open/g) ?? []).length;
    expect(refused).toBeGreaterThanOrEqual(300 - 256);
    socket.destroy();
    const other = await rawExchange(server.port, httpRequest('POST', '/wordle/create'), {
      localAddress: WELL_BEHAVED,
    });
    expect(other.reply).toMatch(/"id":\d+/);
    // 300 idle connections from one address: those past its cap are closed as they arrive.
    const flood = await Promise.all(Array.from({ length: 300 }, () => openSocket(server.port)));
    const closed = await Promise.all(
      flood.map(
        (each) =>
          new Promise<boolean>((resolve) => {
            each.on('error', () => undefined);
            each.once('close', () => resolve(true));
            setTimeout(() => resolve(false), 2000).unref();
          }),
      ),
    );
    expect(closed.filter(Boolean).length).toBeGreaterThanOrEqual(300 - 256);
    await wellBehaved();
    for (const each of flood) each.destroy();
  }, 60_000);

  it('closes sockets whose requests trickle in (within 15 s), while serving others', async () => {
    const slow = await Promise.all(Array.from({ length: 50 }, () => openSocket(server.port)));
    const closed = slow.map(
      (each) =>
        new Promise<boolean>((resolve) => {
          each.on('error', () => undefined);
          each.once('close', () => resolve(true));
          each.resume();
          setTimeout(() => resolve(false), 20_000).unref();
          each.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
        }),
    );
    await wellBehaved();
    expect((await Promise.all(closed)).every(Boolean)).toBe(true);
    await wellBehaved();
  }, 40_000);

  it('served the well-behaved client within the bound throughout, and ended near its starting memory', () => {
    expect(Math.max(...latencies)).toBeLessThan(LATENCY_BOUND_MS);
    expect(rssMb(server.child.pid!) - startRss).toBeLessThan(MEMORY_BOUND_MB);
    expect(server.child.exitCode).toBeNull();
  });

  it('drains on SIGTERM: requests in flight are answered, WebSockets get a close frame', async () => {
    // From a third address, whose share of the sessions the floods above did not take.
    const localAddress = '127.0.0.3';
    const { ws } = await openWebSocket(server.port, '/openenv/alfworld/ws', { localAddress });
    const resets = Array.from({ length: 5 }, (_, i) =>
      rawExchange(
        server.port,
        httpRequest(
          'POST',
          '/openenv/alfworld/reset',
          { 'Content-Type': 'application/json' },
          JSON.stringify({ seed: i }),
        ),
        { timeoutMs: 20_000, localAddress },
      ),
    );
    // Once the server is answering them (each ALFWorld reset compiles a game): the first answer is in,
    // the other four are being read or played.
    await Promise.race(resets);
    server.child.kill('SIGTERM');
    const answers = await Promise.all(resets);
    for (const answer of answers) expect(statusOf(answer.reply), server.stderr()).toBe(200);
    await ws!.closed();
    expect(ws!.closeCode()).toBe(1001);
    expect(await server.exit).toMatchObject({ code: 0 });
  }, 40_000);
});
