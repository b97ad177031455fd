// The server driven by real clients, not ours: openenv-core's GenericEnvClient (PyPI, from the venv
// of reference/setup.sh) plays each env to a win with the oracle's actions, checks the state and an
// error path; and a stdlib-only script replays AgentGym-RL's call pattern (sequential creates, 256
// sessions stepped concurrently from a thread pool, close at the end) against every dialect.
// Without the venv the OpenEnv test skips loudly, and fails when CI is set.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createGeneratedTaskSource } from '@pilotrl/env-alfworld';
import { babyaiTasks } from '@pilotrl/env-babyai';
import { mazeTasks } from '@pilotrl/env-maze';
import { textcraftTasks } from '@pilotrl/env-textcraft';
import { wordleTasks } from '@pilotrl/env-wordle';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceVenv } from '../../../tooling/reference-suite';
import { paperEnvs } from './served-envs.testing';
import { createEnvServer } from './server';

const referenceDir = resolve(import.meta.dirname, '../reference');
const reference = referenceVenv(
  'env-server-reference',
  '@pilotrl/env-server against the real OpenEnv client (openenv-core from PyPI)',
  'packages/env-server/reference/setup.sh',
);

/** Sessions per dialect, as AgentGym-RL's TextCraft script runs (train_batch_size 32 × n 8). */
const SESSIONS = 256;
/** Distinct tasks per dialect; the sessions cycle through them. */
const TASKS = 8;

let scratch: string;
const servers: { close(): Promise<void> }[] = [];
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'env-server-clients-'));
});
afterAll(async () => {
  for (const server of servers) await server.close();
  rmSync(scratch, { recursive: true, force: true });
});

async function serve(envs = paperEnvs) {
  const server = createEnvServer({ envs });
  servers.push(server);
  return { server, url: await server.listen(0, '127.0.0.1') };
}

/** Runs a script of reference/ on `input` (a JSON file); the server keeps answering meanwhile. */
function runPython(python: string, script: string, input: unknown, name: string) {
  const file = join(scratch, `${name}.json`);
  writeFileSync(file, JSON.stringify(input));
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((done) => {
    const child = spawn(python, [join(referenceDir, script), file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk;
    });
    child.on('close', (status) => done({ status, stdout, stderr }));
  });
}

interface Case {
  reset: Record<string, unknown>;
  actions: string[];
}

/** A won episode per env, by the oracle, with the OpenEnv reset data that starts it. */
async function openEnvCases(): Promise<Record<string, Case>> {
  const alfworld = createGeneratedTaskSource();
  const [alfTask] = await alfworld.tasks('valid_unseen', { offset: 1, limit: 1 });
  const [babyTask] = await babyaiTasks.tasks('valid_seen', { offset: 2, limit: 1 });
  const [craftTask] = await textcraftTasks.tasks('train', { offset: 3, limit: 1 });
  const [mazeTask] = await mazeTasks.tasks('valid_unseen', { offset: 4, limit: 1 });
  return {
    alfworld: {
      reset: { split: 'valid_unseen', index: 1 },
      actions: (await alfworld.oracle!(alfTask!)).actions,
    },
    babyai: { reset: { task_id: babyTask!.taskId }, actions: (await babyaiTasks.oracle(babyTask!)).actions },
    textcraft: {
      reset: { split: 'train', index: 3 },
      actions: (await textcraftTasks.oracle(craftTask!)).actions,
    },
    maze: {
      reset: { task_id: mazeTask!.taskId, episode_id: 'maze-1' },
      actions: (await mazeTasks.oracle(mazeTask!)).actions,
    },
    wordle: {
      reset: { seed: 5 },
      actions: (await wordleTasks.oracle({ taskId: 'train-5', split: 'train', seed: 5 })).actions,
    },
  };
}

describe.skipIf(!reference.run)('the real OpenEnv client (openenv-core GenericEnvClient)', () => {
  it('plays every env to a win at /openenv/<env>, and a single-env server at its root', async () => {
    expect(reference.installed, `run packages/env-server/reference/setup.sh first`).toBe(true);
    const cases = await openEnvCases();
    const { url } = await serve();
    const single = await serve(paperEnvs.filter((env) => env.envId === 'maze'));
    const input = [
      ...Object.entries(cases).map(([envId, c]) => ({ base_url: `${url}/openenv/${envId}`, ...c })),
      { base_url: single.url, ...cases.maze! },
    ];
    const run = await runPython(reference.python, 'openenv_client.py', input, 'openenv-cases');
    expect(run.stderr.slice(-2000)).not.toMatch(/Traceback/);
    expect(run.status, run.stdout + run.stderr).toBe(0);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { ok: boolean });
    expect(lines).toHaveLength(input.length);
    expect(lines.every((line) => line.ok)).toBe(true);
  });
});

/** AgentGym-RL's pattern against one dialect: its reset key, the win check and TASKS oracle episodes. */
async function agentgymPlan(envId: string, url: string) {
  const episodes: { index: number; actions: string[] }[] = [];
  for (let k = 0; k < TASKS; k++) {
    if (envId === 'alfworld') {
      const tasks = createGeneratedTaskSource();
      const [task] = await tasks.tasks('train', { offset: k, limit: 1 });
      episodes.push({ index: k, actions: (await tasks.oracle!(task!)).actions });
    } else if (envId === 'textcraft') {
      const [task] = await textcraftTasks.tasks('train', { offset: k, limit: 1 });
      episodes.push({ index: task!.seed, actions: (await textcraftTasks.oracle(task!)).actions });
    } else if (envId === 'babyai') {
      const [task] = await babyaiTasks.tasks('train', { offset: k * 50, limit: 1 });
      episodes.push({ index: task!.seed, actions: (await babyaiTasks.oracle(task!)).actions });
    } else if (envId === 'maze') {
      const [task] = await mazeTasks.tasks('valid_unseen', { offset: k, limit: 1 });
      episodes.push({ index: task!.seed, actions: (await mazeTasks.oracle(task!)).actions });
    } else {
      const task = { taskId: `train-${k}`, split: 'train', seed: k };
      episodes.push({ index: k, actions: (await wordleTasks.oracle(task)).actions });
    }
  }
  const resetKey = {
    alfworld: 'game',
    textcraft: 'data_idx',
    babyai: 'data_idx',
    maze: 'game',
    wordle: 'seed',
  }[envId];
  return {
    env_addr: `${url}/${envId}`,
    reset_key: resetKey,
    extra: envId === 'alfworld' ? { world_type: 'Text' } : {},
    // BabyAI's reward for a win is 1 - 0.9·t/T, below 1; the others give 1.
    win_reward_at_least: envId === 'babyai' ? 0.1 : 1,
    deadline_s: 240,
    sessions: Array.from({ length: SESSIONS }, (_, k) => episodes[k % TASKS]!),
  };
}

describe("AgentGym-RL's call pattern (stdlib Python, 256 concurrent sessions per dialect)", () => {
  it.each(['alfworld', 'textcraft', 'babyai', 'maze', 'wordle'])('%s', async (envId) => {
    const { url, server } = await serve();
    const plan = await agentgymPlan(envId, url);
    const run = await runPython('python3', 'agentgym_pattern.py', plan, `agentgym-${envId}`);
    expect(run.status, run.stdout + run.stderr.slice(-3000)).toBe(0);
    const summary = JSON.parse(run.stdout.trim()) as { sessions: number; closed: number };
    expect(summary).toMatchObject({ sessions: SESSIONS, closed: SESSIONS });
    expect(server.metrics().sessions.open).toBe(0);
    expect(server.metrics().errors.total).toBe(0);
  });
});
