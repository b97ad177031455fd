// A reference server run as a child process for the engine tests (llama.cpp's, SkyRL's): started on
// a free loopback port, ready when an HTTP probe answers within a bound, and watched afterwards. A
// server that dies by itself, before or after it was ready, is reported with its exit code or
// signal and the tail of its log: at once on stderr, by `assertAlive()` (call it in `afterEach`, so
// the test that saw refused connections also says why) and by `close()`.
import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import { createServer } from 'node:net';

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  await new Promise<void>((done) => server.close(() => done()));
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

export interface ServerProcess {
  /** The server's output so far (the last `logChars` characters). */
  log(): string;
  /** Undefined while the server runs or was stopped by us; else how it ended, with its log's tail. */
  death(): string | undefined;
  /** Throws the death report when the server ended by itself. */
  assertAlive(): void;
  /** Stops the server (and, when started `detached`, its process group) with `signal`, expectedly. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export interface ServerProcessOptions {
  /** The server's name in reports, e.g. `llama_cpp.server`. */
  name: string;
  command: string;
  args: readonly string[];
  spawn?: Omit<SpawnOptions, 'stdio'>;
  /** An URL that answers 2xx once the server serves. */
  readyUrl: string;
  readyTimeoutMs: number;
  /** How much of the log is kept (default 20,000 characters). */
  logChars?: number;
  /** How much of the log a report quotes (default 3,000 characters). */
  reportChars?: number;
}

function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  return signal !== null ? `signal ${signal}` : `exit code ${code}`;
}

/** Starts the server and resolves once `readyUrl` answers; rejects with its log when it dies or times out first. */
export async function startServerProcess(options: ServerProcessOptions): Promise<ServerProcess> {
  const keep = options.logChars ?? 20_000;
  const quote = options.reportChars ?? 3_000;
  const child: ChildProcess = spawn(options.command, [...options.args], {
    ...options.spawn,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const append = (chunk: Buffer) => {
    log = (log + chunk).slice(-keep);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);

  let ready = false;
  let stopping = false;
  let ended: string | undefined;
  let death: string | undefined;
  const exited = new Promise<void>((done) => {
    child.once('exit', (code, signal) => {
      ended = describeExit(code, signal);
      if (!stopping) {
        death = `${options.name} ${ready ? 'died after it was ready' : 'exited before it was ready'} (${ended}); the last of its log:\n${log.slice(-quote)}`;
        if (ready) console.error(`!! ${death}`);
      }
      done();
    });
  });

  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (ended !== undefined) return;
    stopping = true;
    try {
      if (options.spawn?.detached && child.pid !== undefined) process.kill(-child.pid, signal);
      else child.kill(signal);
    } catch {
      // Already gone.
    }
    await exited;
  };

  const deadline = Date.now() + options.readyTimeoutMs;
  for (;;) {
    if (death !== undefined) throw new Error(death);
    try {
      const response = await fetch(options.readyUrl, { signal: AbortSignal.timeout(2000) });
      if (response.ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      await stop('SIGKILL');
      throw new Error(
        `${options.name} was not ready within ${options.readyTimeoutMs} ms; the last of its log:\n${log.slice(-quote)}`,
      );
    }
    await new Promise((done) => setTimeout(done, 250));
  }
  ready = true;
  return {
    log: () => log,
    death: () => death,
    assertAlive: () => {
      if (death !== undefined) throw new Error(death);
    },
    stop,
  };
}
