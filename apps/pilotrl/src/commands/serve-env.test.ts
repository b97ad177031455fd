import { EventEmitter } from 'node:events';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli';
import type { CliIo } from './io';
import { serveEnvUntilStopped } from './serve-env';

function capture(): CliIo & { out: () => string; url: Promise<string> } {
  let out = '';
  let announce: (url: string) => void = () => undefined;
  const url = new Promise<string>((resolve) => {
    announce = resolve;
  });
  return {
    stdin: Readable.from([]),
    stdout: {
      write: (text: string) => {
        out += text;
        const serving = / at (http:\S+)/.exec(text);
        if (serving !== null) announce(serving[1]!);
        return true;
      },
    },
    stderr: { write: () => true },
    out: () => out,
    url,
  };
}

describe('pilotrl serve-env', () => {
  it('serves registered envs over OpenEnv and AgentGym until SIGTERM', async () => {
    const io = capture();
    const signals = new EventEmitter();
    const serving = serveEnvUntilStopped(
      { envs: ['maze', 'wordle'], port: 0, host: '127.0.0.1' },
      io,
      signals,
    );
    const url = await io.url;
    expect(io.out()).toContain(`AgentGym  ${url}/maze`);
    expect(io.out()).toContain(`OpenEnv   ${url}/openenv/wordle (WebSocket ws`);
    const created = await (await fetch(`${url}/maze/create`, { method: 'POST' })).json();
    expect(created).toEqual({ id: expect.any(Number) });
    expect(await (await fetch(`${url}/openenv/maze/health`)).json()).toEqual({ status: 'healthy' });
    signals.emit('SIGTERM', 'SIGTERM');
    await serving;
    await expect(fetch(`${url}/health`)).rejects.toThrow();
  });

  it('names an unknown env and the known ones', async () => {
    const io = capture();
    let err = '';
    io.stderr = {
      write: (text: string) => {
        err += text;
        return true;
      },
    };
    expect(await runCli(['serve-env', '--env', 'nope'], io)).toBe(1);
    expect(err).toMatch(/^pilotrl serve-env: Unknown environment "nope"\. Known: .*alfworld/);
  });
});
