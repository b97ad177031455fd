// The remote env against a real Python OpenEnv server, not ours: reference/textworld_server.py,
// built with openenv-core's server library, serving games TextWorld's tw-make makes here (from
// the venv of reference/setup.sh). The env passes the TextEnv checks, its oracle being the
// walkthrough tw-make recorded, read back through textworld's API; and a scripted win is scored as
// TextWorld scores it. Without the venv these tests skip loudly, and fail when CI is set.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { checkEnv } from '@pilotrl/env-testkit/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceVenv } from '../../../tooling/reference-suite';
import { createRemoteEnv, remoteTasks } from './index';

const script = resolve(import.meta.dirname, '../reference/textworld_server.py');
const reference = referenceVenv(
  'env-remote-reference',
  '@pilotrl/env-remote against a real Python OpenEnv server (openenv-core + TextWorld from PyPI)',
  'packages/env-remote/reference/setup.sh',
  'PyPI, a few minutes',
);

/** Games tw-make makes for the run (tw-game-0 ... ), from seeds 1234, 1235, ... */
const GAMES = 3;

interface Game {
  name: string;
  file: string;
  seed: number;
  objective: string;
  walkthrough: string[];
}

let scratch = '';
let server: ChildProcess | undefined;
let url = '';
let games: Game[] = [];

/** Starts `serve` and resolves with the URL it prints once it accepts connections. */
function startServer(dir: string): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(reference.python, [script, 'serve', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    server = child;
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk;
    });
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk;
      const match = /^listening (http:\/\/\S+)$/m.exec(stdout);
      if (match !== null) done(match[1]!);
    });
    child.on('exit', (code) =>
      fail(new Error(`textworld_server.py serve exited with ${code}:\n${stderr.slice(-3000)}`)),
    );
  });
}

const remote = (maxSteps?: number) => () =>
  createRemoteEnv({
    protocol: 'openenv',
    url,
    envId: 'textworld',
    ...(maxSteps === undefined ? {} : { maxSteps }),
  });

const tasks = remoteTasks({
  envId: 'textworld',
  splits: { train: { count: GAMES } },
  taskId: (n) => `tw-game-${n}`,
  oracle: async (task) => {
    const game = games[task.seed]!;
    return { actions: game.walkthrough, plan: game.walkthrough };
  },
});

describe.skipIf(!reference.run)('a real Python OpenEnv server (openenv-core) playing TextWorld games', () => {
  beforeAll(async () => {
    expect(reference.installed, `run packages/env-remote/reference/setup.sh first`).toBe(true);
    scratch = mkdtempSync(join(tmpdir(), 'env-remote-textworld-'));
    const make = spawnSync(reference.python, [script, 'make', scratch, String(GAMES)], { encoding: 'utf8' });
    expect(make.status, make.stdout + make.stderr).toBe(0);
    games = JSON.parse(readFileSync(join(scratch, 'games.json'), 'utf8')) as Game[];
    url = await startServer(scratch);
  });

  afterAll(() => {
    server?.removeAllListeners('exit');
    server?.kill('SIGTERM');
    if (scratch !== '') rmSync(scratch, { recursive: true, force: true });
  });

  checkEnv(remote(), {
    name: 'TextWorld (tw-make) over OpenEnv',
    resets: [{ seed: 0 }, { seed: 1 }, { seed: 2, taskId: 'tw-game-2' }],
    stepLimit: { maxSteps: 4, create: remote(4) },
    taskSource: tasks,
    tasksPerSplit: GAMES,
  });

  it('wins each game with the walkthrough tw-make recorded, scored as TextWorld scores it', async () => {
    const env = remote()();
    for (const [n, game] of games.entries()) {
      const first = await env.reset({ seed: n });
      expect(first.info).toMatchObject({ taskId: game.name, task: game.objective, won: false });
      expect(first.observation.startsWith(game.objective)).toBe(true);
      let last = first;
      let total = 0;
      for (const action of game.walkthrough) {
        expect(last.admissibleActions).toContain(action);
        last = await env.step(action);
        total += last.reward;
      }
      expect(last).toMatchObject({ terminated: true, truncated: false, info: { won: true, valid: true } });
      expect(last.observation).toContain('*** The End ***');
      expect(total).toBe((last.info.server as { max_score: number }).max_score);
    }
    await env.close?.();
  });

  it('hears the server refuse a game it does not have, quoting its message', async () => {
    const env = remote()();
    await expect(env.reset({ seed: 0, taskId: 'zork-1' })).rejects.toThrow(
      /answered reset with an error: EXECUTION_ERROR: No game named 'zork-1'; the games are tw-game-0, tw-game-1, tw-game-2/,
    );
    // The connection stays usable: the server answered, it did not drop.
    expect((await env.reset({ seed: 1 })).info.taskId).toBe('tw-game-1');
    await env.close?.();
  });
});
