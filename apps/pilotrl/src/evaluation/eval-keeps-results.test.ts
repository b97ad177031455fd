import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../cli';
import { capturedIo, tinyCorridorConfig } from '../tiny-corridor.testing';

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/** A chat-completions server that answers `look` to the first `good` requests, then `{"choices": []}`. */
async function modelThatBreaksAfter(good: number): Promise<string> {
  let served = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const choices =
        served++ < good
          ? [
              {
                index: 0,
                message: { role: 'assistant', content: '<thought>t</thought><action>look</action>' },
                finish_reason: 'stop',
              },
            ]
          : [];
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ choices }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

describe('pilotrl eval keeps what it has', () => {
  it('writes episodes as they finish and, when the model breaks, reports them and how many are missing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pilotrl-eval-keeps-'));
    const configPath = join(dir, 'config.json');
    writeFileSync(configPath, JSON.stringify(tinyCorridorConfig(0)));
    // 40 episodes play in waves of 32 and 8; each of the first 32 looks around for its 4 steps.
    const baseUrl = await modelThatBreaksAfter(32 * 4);
    const out = join(dir, 'episodes.jsonl');
    const io = capturedIo();
    const code = await runCli(
      [
        'eval',
        ...['--base-url', baseUrl, '--model', 'm', '--config', configPath, '--paradigm', 'react'],
        ...['--episodes', '40', '--splits', 'valid_unseen', '--max-retries', '1', '--out', out],
      ],
      io,
    );
    expect(code).toBe(1);
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(32);
    expect(JSON.parse(lines[0]!).split).toBe('valid_unseen');
    expect(io.out()).toMatch(/valid_unseen\s+react\s+0\.0%\s+\[0\.0%, \d+\.\d%\]\s+32/);
    const errors = io.err().trim().split('\n');
    expect(errors.at(-1)).toMatch(
      /^pilotrl eval: POST .*chat\/completions failed after 2 attempts: body is not a chat completion .*; 32 of 40 episodes finished \(their table is on stdout\); they are in .*episodes\.jsonl; 8 missing$/,
    );
    expect(errors.slice(0, -1).every((line) => line.startsWith('pilotrl eval: retrying POST'))).toBe(true);
    // The file is never appended to by a second eval.
    const again = capturedIo();
    expect(
      await runCli(
        ['eval', '--base-url', baseUrl, '--model', 'm', '--config', configPath, '--out', out],
        again,
      ),
    ).toBe(1);
    expect(again.err()).toBe(`pilotrl eval: --out ${out} already exists; give a new file for the episodes\n`);
  });
});
