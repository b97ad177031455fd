import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli';
import { capturedIo, tinyCorridorConfig } from '../tiny-corridor.testing';

/** `pilotrl train` on the tiny corridor curriculum with `overrides`; the exit code, stderr and whether the run dir was made. */
async function trainWith(overrides: Parameters<typeof tinyCorridorConfig>[1]) {
  const dir = mkdtempSync(join(tmpdir(), 'pilotrl-preflight-'));
  const configPath = join(dir, 'config.json');
  writeFileSync(configPath, JSON.stringify({ ...tinyCorridorConfig(1), ...overrides }));
  const out = join(dir, 'run');
  const io = capturedIo();
  const code = await runCli(['train', '--config', configPath, '--out', out, '--no-report'], io);
  const lines = io.err().trim().split('\n');
  return { code, error: lines.at(-1), made: existsSync(out) };
}

describe('a curriculum that cannot start is refused before its run directory exists', () => {
  it('reports the error the env gives for an option it does not take', async () => {
    const result = await trainWith({ env: { id: 'testkit/corridor', maxSteps: 4, options: { bogus: 1 } } });
    expect(result).toMatchObject({ code: 1, made: false });
    expect(result.error).toMatch(/bogus/);
  });

  it('names an eval split the env does not have', async () => {
    const result = await trainWith({ eval: { episodes: 2, every: 10, splits: ['valid_nope'] } });
    expect(result).toEqual({
      code: 1,
      made: false,
      error:
        'pilotrl train: eval.splits: env "testkit/corridor" has no split "valid_nope"; its splits are train, valid_seen, valid_unseen',
    });
  });

  it('refuses a context that cannot hold the first prompt, naming policy.contextLength', async () => {
    const result = await trainWith({
      policy: { size: 'tiny', tokenizerCorpusTasks: 5, vocabSize: 340, contextLength: 10 },
    });
    expect(result.code).toBe(1);
    expect(result.made).toBe(false);
    expect(result.error).toMatch(
      /^pilotrl train: policy\.contextLength: 10 tokens cannot hold the agent's first prompt/,
    );
  });
});
