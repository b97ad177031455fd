// A curriculum whose policy trains on a Tinker server, refused before any training when the server
// or the model's tokenizer cannot be reached, with nothing left behind. (The runs against a real
// server are in tinker-curriculum.engine.test.ts.)
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { runCli } from '../cli';
import { capturedIo } from '../tiny-corridor.testing';

const shipped = parse(
  readFileSync(join(import.meta.dirname, '..', '..', 'configs', 'tinker-tiny.yaml'), 'utf8'),
) as Record<string, unknown> & { policy: Record<string, unknown> };

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

async function trainWith(policy: Record<string, unknown>, flags: string[] = []) {
  const dir = mkdtempSync(join(tmpdir(), 'pilotrl-tinker-config-'));
  const config = join(dir, 'tinker.yaml');
  writeFileSync(config, stringify({ ...shipped, policy: { ...shipped.policy, ...policy } }));
  const out = join(dir, 'run');
  const io = capturedIo();
  const code = await runCli(['train', '--config', config, '--out', out, '--no-report', ...flags], io);
  return { code, err: io.err(), out };
}

describe('a Tinker policy that cannot start', () => {
  it('fails on an unreachable server with a retryable error naming the request, leaving no run', async () => {
    const tokenizerDir = join(
      import.meta.dirname,
      '../../../../packages/tinker/test/fixtures/tiny-tokenizer',
    );
    const { code, err, out } = await trainWith({
      baseUrl: `http://127.0.0.1:${await closedPort()}`,
      baseModel: 'Qwen/Qwen3-8B',
      tokenizerDir,
    });
    expect(code).toBe(1);
    expect(err).toMatch(/POST \/api\/v1\/client\/config failed after 4 attempts: cannot reach the server/);
    expect(err).toContain('the call can be repeated');
    expect(existsSync(out)).toBe(false);
  }, 60_000);

  it('asks for tokenizerDir when the base model is not a local directory to read it from', async () => {
    const { code, err, out } = await trainWith({ baseModel: 'Qwen/Qwen3-8B' });
    expect(code).toBe(1);
    expect(err).toContain(
      'policy.tokenizerDir: give a local directory holding the tokenizer.json of Qwen/Qwen3-8B',
    );
    expect(existsSync(out)).toBe(false);
  });

  it('refuses --backend, which chooses a tfjs backend', async () => {
    const { code, err, out } = await trainWith({}, ['--backend', 'wasm']);
    expect(code).toBe(1);
    expect(err).toContain(
      '--backend wasm chooses a tfjs backend, but curriculum "tinker-tiny" trains on a Tinker server',
    );
    expect(existsSync(out)).toBe(false);
  });
});
