import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { TfjsPolicy, Tokenizer } from '@pilotrl/policy-tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli';
import type { CliIo } from './io';
import { serveUntilStopped } from './serve';

let root: string;
let checkpoint: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'pilotrl-serve-'));
  checkpoint = join(root, 'policy');
  const tokenizer = Tokenizer.train(['go north', 'take the key'], { vocabSize: 280 });
  const policy = await TfjsPolicy.create({
    tokenizer,
    model: { dModel: 16, nLayers: 1, nHeads: 2, contextLength: 32, seed: 1 },
  });
  await policy.saveState(checkpoint);
  policy.dispose();
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Captured output; `url` resolves with the address once the server says it is serving. */
function capture(): CliIo & { err: () => string; url: Promise<string> } {
  let err = '';
  let announce: (url: string) => void = () => undefined;
  const url = new Promise<string>((resolve) => {
    announce = resolve;
  });
  return {
    stdin: Readable.from([]),
    stdout: {
      write: (text: string) => {
        const serving = / at (http:\S+)/.exec(text);
        if (serving !== null) announce(serving[1]!);
        return true;
      },
    },
    stderr: {
      write: (text: string) => {
        err += text;
        return true;
      },
    },
    err: () => err,
    url,
  };
}

describe('pilotrl serve shutdown', () => {
  it('stops on SIGTERM within its shutdown timeout while a client holds a request open', async () => {
    const io = capture();
    const signals = new EventEmitter();
    const serving = serveUntilStopped(
      { checkpoint, port: 0, host: '127.0.0.1', modelName: 'tiny', shutdownTimeoutMs: 200 },
      io,
      signals,
    );
    const url = new URL(await io.url);
    expect((await fetch(`${url.href}/models`)).status).toBe(200);
    // A request whose body never arrives: it stays in flight until the server cuts it.
    const socket = connect(Number(url.port), url.hostname);
    const socketClosed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      'POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"model":',
    );
    // A round trip on another connection gives the server time to read those headers.
    expect((await fetch(`${url.href}/models`)).status).toBe(200);

    signals.emit('SIGTERM', 'SIGTERM');
    await serving;
    await socketClosed;
    expect(io.err()).toContain('pilotrl: SIGTERM: stopping; requests in flight get up to 0.2 s to finish\n');
    await expect(fetch(`${url.href}/models`)).rejects.toThrow();
    expect(signals.listenerCount('SIGINT') + signals.listenerCount('SIGTERM')).toBe(0);
  });

  it('refuses a --shutdown-timeout that is not a whole number of seconds up to a day', async () => {
    for (const value of ['soon', '0.5', '86401']) {
      const io = capture();
      expect(await runCli(['serve', '--checkpoint', checkpoint, '--shutdown-timeout', value], io)).toBe(1);
      expect(io.err()).toBe(
        `pilotrl serve: --shutdown-timeout must be an integer from 0 to 86400, got "${value}"\n`,
      );
    }
  });
});
