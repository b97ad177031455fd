import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './cli';
import { capturedIo } from './tiny-corridor.testing';

const appDir = join(import.meta.dirname, '..');
const { version } = JSON.parse(readFileSync(join(appDir, 'package.json'), 'utf8')) as { version: string };

async function run(args: string[]) {
  const io = capturedIo();
  const code = await runCli(args, io);
  return { code, out: io.out(), err: io.err() };
}

describe('pilotrl --help and --version', () => {
  it.each([
    ['train', ['--config', '--out', '--resume', '--backend', '--no-report', 'quick']],
    ['eval', ['--checkpoint', '--base-url', '--model', '--episodes', '--max-concurrency', 'adaplan']],
    ['report', ['<run-dir>']],
    ['play', ['--env', '--split', '--task', '--max-steps', '(default: 50)']],
    ['serve', ['--checkpoint', '--port', '--host', '--shutdown-timeout', '(default: 8000)']],
    ['serve-env', ['--env', '--port', '--host', '--max-sessions', '--idle-timeout', '--step-timeout']],
    ['reproduce', ['--config', '--seeds', '--variants', '--runs-dir', '<runs-dir>/RESULTS.md']],
    [
      'compute-curve',
      [
        '--config',
        '--seeds',
        '--split',
        '--episodes',
        '--best-of',
        '--lookahead',
        '--best-of-from',
        '--lookahead-from',
      ],
    ],
  ])('%s --help lists its options and exits 0', async (command, expected) => {
    for (const args of [
      [command, '--help'],
      ['help', command],
    ]) {
      const { code, out, err } = await run(args);
      expect(code, args.join(' ')).toBe(0);
      expect(err).toBe('');
      expect(out).toMatch(new RegExp(`^Usage: pilotrl ${command} `));
      expect(out).toContain('--debug');
      for (const text of expected) expect(out).toContain(text);
    }
  });

  it('pilotrl --help lists every command', async () => {
    const { code, out } = await run(['--help']);
    expect(code).toBe(0);
    for (const command of [
      'train',
      'eval',
      'report',
      'play',
      'serve',
      'serve-env',
      'reproduce',
      'compute-curve',
    ])
      expect(out).toMatch(new RegExp(`\\n  ${command} `));
  });

  it('pilotrl without a command prints the help on stderr and exits 1', async () => {
    const { code, out, err } = await run([]);
    expect(code).toBe(1);
    expect(out).toBe('');
    expect(err).toMatch(/^Usage: pilotrl /);
  });

  it('--version prints the version of the app', async () => {
    for (const flag of ['--version', '-V'])
      expect(await run([flag])).toEqual({ code: 0, out: `${version}\n`, err: '' });
  });

  it('the executable prints its version and exits 0', () => {
    const result = spawnSync(
      process.execPath,
      ['--conditions=@pilotrl/source', '--import', 'tsx', 'src/bin.ts', '--version'],
      { cwd: appDir, encoding: 'utf8', timeout: 60_000 },
    );
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(`${version}\n`);
    expect(result.status).toBe(0);
  });
});

describe('pilotrl with bad arguments', () => {
  it('suggests the command meant by a misspelt one', async () => {
    expect(await run(['trian', '--config', 'quick'])).toEqual({
      code: 1,
      out: '',
      err: "pilotrl: unknown command 'trian' (did you mean train?); see pilotrl --help\n",
    });
  });

  // Every command with an unknown flag, a misspelt one, a flag without its value and bad numbers:
  // one line naming the command and the problem, no stack trace, exit code 1, before any work.
  const mistakes: [string[], string][] = [
    [['train', '--bogus'], "pilotrl train: unknown option '--bogus'"],
    [['train', '--confg', 'quick'], "pilotrl train: unknown option '--confg' (did you mean --config?)"],
    [['train', '--config'], "pilotrl train: option '--config <file|preset>' argument missing"],
    [
      ['train', '--config', 'quick', '--backend', 'gpu'],
      'pilotrl train: unknown tfjs backend "gpu" (from --backend)',
    ],
    [['train', 'quick'], "pilotrl train: too many arguments for 'train'"],
    [['eval', '--bogus'], "pilotrl eval: unknown option '--bogus'"],
    [['eval', '--chekpoint', 'x'], "pilotrl eval: unknown option '--chekpoint' (did you mean --checkpoint?)"],
    [['eval', '--checkpoint'], "pilotrl eval: option '--checkpoint <dir>' argument missing"],
    [['eval', '--episodes', '0'], 'pilotrl eval: --episodes must be an integer from 1 to 100000, got "0"'],
    [['eval', '--episodes', '-1'], 'pilotrl eval: --episodes must be an integer from 1 to 100000, got "-1"'],
    [
      ['eval', '--episodes', 'abc'],
      'pilotrl eval: --episodes must be an integer from 1 to 100000, got "abc"',
    ],
    [
      ['eval', '--max-concurrency', '0'],
      'pilotrl eval: --max-concurrency must be an integer from 1 to 1024, got "0"',
    ],
    [['eval', '--timeout', '1.5'], 'pilotrl eval: --timeout must be an integer from 1 to 86400, got "1.5"'],
    [
      ['eval', '--paradigm', 'plan'],
      "pilotrl eval: option '--paradigm <name>' argument 'plan' is invalid. Allowed choices are adaplan, react.",
    ],
    [['report'], "pilotrl report: missing required argument 'run-dir'"],
    [['report', 'a', 'b'], "pilotrl report: too many arguments for 'report'"],
    [['report', 'a', '--bogus'], "pilotrl report: unknown option '--bogus'"],
    [['play', '--bogus'], "pilotrl play: unknown option '--bogus'"],
    [['play', '--max-step', '5'], "pilotrl play: unknown option '--max-step' (did you mean --max-steps?)"],
    [['play', '--task'], "pilotrl play: option '--task <n>' argument missing"],
    [['play', '--max-steps', '0'], 'pilotrl play: --max-steps must be an integer from 1 to 1000, got "0"'],
    [['play', '--task', '-1'], 'pilotrl play: --task must be an integer of at least 0, got "-1"'],
    [['play', '--task', 'abc'], 'pilotrl play: --task must be an integer of at least 0, got "abc"'],
    [['serve'], "pilotrl serve: required option '--checkpoint <dir>' not specified"],
    [['serve', '--checkpoint', 'x', '--bogus'], "pilotrl serve: unknown option '--bogus'"],
    [
      ['serve', '--checkpoint', 'x', '--prot', '1'],
      "pilotrl serve: unknown option '--prot' (did you mean --port?)",
    ],
    [['serve', '--checkpoint', 'x', '--port'], "pilotrl serve: option '--port <n>' argument missing"],
    [
      ['serve', '--checkpoint', 'x', '--port', 'abc'],
      'pilotrl serve: --port must be an integer from 0 to 65535, got "abc"',
    ],
    [
      ['serve', '--checkpoint', 'x', '--port', '-1'],
      'pilotrl serve: --port must be an integer from 0 to 65535, got "-1"',
    ],
    [['reproduce', '--bogus'], "pilotrl reproduce: unknown option '--bogus'"],
    [['reproduce', '--sedes', '1'], "pilotrl reproduce: unknown option '--sedes' (did you mean --seeds?)"],
    [['reproduce', '--seeds'], "pilotrl reproduce: option '--seeds <list>' argument missing"],
    [['reproduce', '--seeds', '1,x'], 'pilotrl reproduce: --seeds must be an integer of at least 0, got "x"'],
    [['reproduce', '--seeds', '-1'], 'pilotrl reproduce: --seeds must be an integer of at least 0, got "-1"'],
    [['reproduce', '--variants', 'react,best'], 'pilotrl reproduce: --variants: unknown best; allowed: '],
  ];

  it.each(mistakes)('pilotrl %j: one line, no stack, exit 1', async (args, expected) => {
    const { code, out, err } = await run(args);
    expect(code).toBe(1);
    expect(out).toBe('');
    expect(err.startsWith(expected), err).toBe(true);
    expect(err.split('\n')).toHaveLength(2);
    expect(err.endsWith('\n')).toBe(true);
    expect(err).not.toMatch(/\bat .*:\d+:\d+/);
  });

  it('--debug prints the stack trace of the error', async () => {
    const plain = await run(['report', join(appDir, 'no-such-run')]);
    expect(plain.code).toBe(1);
    expect(plain.err).toBe(
      `pilotrl report: ${join(appDir, 'no-such-run')} is not a run directory (no config.json)\n`,
    );
    const debug = await run(['report', join(appDir, 'no-such-run'), '--debug']);
    expect(debug.code).toBe(1);
    expect(debug.err).toMatch(
      /^pilotrl report: CheckpointError: .* is not a run directory \(no config\.json\)\n\s+at /,
    );
  });
});
