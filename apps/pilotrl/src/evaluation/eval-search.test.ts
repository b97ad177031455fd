// `pilotrl eval --search`: best-of-N plans and look-ahead on a checkpoint, the compute columns of
// the table, and bad search options refused before any episode runs.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli';
import { parseConfig } from '../config/curriculum-config';
import { startRun } from '../run/run-start';
import { capturedIo, oneJointStage } from '../tiny-corridor.testing';

const tinyConfig = (valueHead: boolean) => ({
  name: 'eval-search-test',
  env: { id: 'testkit/corridor', maxSteps: 4 },
  policy: { size: 'tiny', tokenizerCorpusTasks: 5, vocabSize: 340, contextLength: 384, valueHead },
  agent: {
    prompt: 'compact',
    planRevision: 'never',
    historyWindow: 1,
    maxPlanTokens: 16,
    maxActionTokens: 12,
    actionSpace: 'choice',
  },
  stages: [oneJointStage],
  eval: { episodes: 2, splits: ['valid_seen'] },
});

const runs: Record<'plain' | 'critic', { checkpoint: string; config: string }> = {} as never;

beforeAll(async () => {
  for (const [kind, valueHead] of [
    ['plain', false],
    ['critic', true],
  ] as const) {
    const dir = mkdtempSync(join(tmpdir(), `pilotrl-eval-search-${kind}-`));
    const { policy } = await startRun(parseConfig(tinyConfig(valueHead)));
    await policy.saveState(join(dir, 'policy'));
    writeFileSync(join(dir, 'config.json'), JSON.stringify(tinyConfig(valueHead)));
    runs[kind] = { checkpoint: join(dir, 'policy'), config: join(dir, 'config.json') };
  }
});

const evalWith = async (kind: 'plain' | 'critic', flags: string[]) => {
  const io = capturedIo();
  const { checkpoint, config } = runs[kind];
  const code = await runCli(
    ['eval', '--checkpoint', checkpoint, '--config', config, '--backend', 'wasm', ...flags],
    io,
  );
  return { code, out: io.out(), err: io.err() };
};

/** The compute columns of the table's first split line: tokens, scored tokens, steps, copies per episode. */
const computeOf = (out: string) => {
  const line = out.split('\n').find((l) => l.startsWith('valid_seen'))!;
  return line.trim().split(/\s+/).slice(-4).map(Number);
};

describe('pilotrl eval --search', () => {
  it('reports the compute of a plain evaluation, with no copies and nothing scored', async () => {
    const { code, out } = await evalWith('plain', []);
    expect(code).toBe(0);
    expect(out).toContain('gen-tok/ep  scored/ep  steps/ep  copies/ep');
    const [generated, scored, steps, copies] = computeOf(out);
    expect(generated).toBeGreaterThan(0);
    expect([scored, copies]).toEqual([0, 0]);
    expect(steps).toBeGreaterThan(0);
  });

  it('plays look-ahead on env copies with a rollout scorer', async () => {
    const { code, out } = await evalWith('plain', ['--search', 'lookahead', '--width', '2', '--depth', '2']);
    expect(code).toBe(0);
    const [, scored, steps, copies] = computeOf(out);
    expect(scored).toBe(0);
    // Two copies per decision; each copy steps once and may play on once more.
    expect(copies).toBeGreaterThan(0);
    expect(steps).toBeGreaterThan(copies!);
  });

  it('plays look-ahead with the value head of a checkpoint that has one', async () => {
    const { code, out } = await evalWith('critic', [
      '--search',
      'lookahead',
      '--width',
      '2',
      '--depth',
      '1',
      '--scorer',
      'value',
    ]);
    expect(code).toBe(0);
    expect(computeOf(out)[1]).toBeGreaterThan(0);
  });

  it('accepts --scorer value for best-of-n on a checkpoint with a value head', async () => {
    // The untrained model's free-text plans do not parse, so none is scored here; the agent's
    // best-of-n tests score plans with a value head.
    const { code, out } = await evalWith('critic', [
      '--search',
      'best-of-n',
      '--n',
      '2',
      '--scorer',
      'value',
    ]);
    expect(code).toBe(0);
    expect(out).toMatch(/valid_seen\s+adaplan\s+\d+\.\d%/);
  });

  it('ranks best-of-N plans with the reference judge', async () => {
    const { code, out, err } = await evalWith('plain', [
      '--search',
      'best-of-n',
      '--n',
      '3',
      '--scorer',
      'judge',
    ]);
    expect(err).toBe('pilotrl: backend wasm (1 thread)\n');
    expect(code).toBe(0);
    expect(out).toMatch(/valid_seen\s+adaplan\s+\d+\.\d%/);
  });

  it.each([
    [['--search', 'best-of-n', '--n', '0'], '--n must be at least 1; a search budget of 0 plays nothing'],
    [
      ['--search', 'lookahead', '--depth', '5'],
      `--depth 5 is beyond env "testkit/corridor"'s step limit of 4`,
    ],
    [['--search', 'lookahead', '--scorer', 'value'], '--scorer value needs a value head, but policy'],
    [['--search', 'best-of-n', '--paradigm', 'react'], 'which writes none; use --paradigm adaplan'],
    [
      ['--search', 'lookahead', '--env', 'textcraft'],
      'plays candidates on copies of the env, but env "textcraft" cannot copy its state',
    ],
  ])('refuses %j before any episode runs', async (flags, message) => {
    const { code, out, err } = await evalWith('plain', flags);
    expect(code).toBe(1);
    expect(err).toContain(message);
    expect(out).toBe('');
  });
});
