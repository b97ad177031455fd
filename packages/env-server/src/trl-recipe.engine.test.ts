// A real trainer on our env: TRL's GRPOTrainer (PyPI trl, from the venv of reference/trl/setup.sh)
// runs reference/trl/grpo_alfworld.py for a few steps against ALFWorld served here, through an
// environment_factory class over openenv-core's GenericEnvClient. The test checks that every reward
// the recipe logged is one our server handed out, step for step. Without the venv it skips loudly,
// and fails when CI is set.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createAlfworldEnv, createGeneratedTaskSource } from '@pilotrl/env-alfworld';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { referenceVenv } from '../../../tooling/reference-suite';
import { envReward } from './served-env';
import { createEnvServer } from './server';

const recipe = resolve(import.meta.dirname, '../reference/trl/grpo_alfworld.py');
const reference = referenceVenv(
  'env-server-trl-reference',
  "TRL's GRPOTrainer on ALFWorld served by @pilotrl/env-server (reference/trl)",
  'packages/env-server/reference/trl/setup.sh',
  'PyPI: trl, transformers, torch; several GB',
);

/** Training steps, and rollouts per step (the recipe's batch: 2 prompts × 2 generations). */
const STEPS = 3;
const ROLLOUTS = 4;
/** ALFWorld train tasks in the recipe's dataset (its default). */
const TASKS = 4;
/** The test server's reward for a command the game carried out, short of winning. */
const SHAPING = 0.1;
/** The whole run, model building and warm-up included; about a minute on 2 cores. */
const DEADLINE_MS = 300_000;

interface Episode {
  task_id: string;
  commands: string[];
  rewards: number[];
  reward: number;
  server_step_count: number;
  server_total_reward: number;
}
interface Summary {
  steps: {
    step: number;
    rewards: number[];
    env_steps: number[];
    trl_reward_mean: number;
    grad_norm: number;
  }[];
  episodes: Episode[];
}

let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'env-server-trl-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function runRecipe(url: string, out: string) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((done) => {
    const child = spawn(
      reference.python,
      [recipe, '--url', url, '--out', out, '--max-steps', String(STEPS)],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, TOKENIZERS_PARALLELISM: 'false', HF_HUB_OFFLINE: '1' },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), DEADLINE_MS);
    child.on('close', (status) => {
      clearTimeout(timer);
      done({ status, stdout, stderr });
    });
  });
}

describe.skipIf(!reference.run)("TRL's GRPOTrainer on ALFWorld served by our server", () => {
  it(
    'trains a few steps through environment_factory, on rewards our server sent',
    async () => {
      expect(reference.installed, `run packages/env-server/reference/trl/setup.sh first`).toBe(true);
      // The task outcome, or SHAPING for a command the game carried out (the server's reward hook), so
      // that rollouts differ and GRPO's update is not empty; each reward recorded as handed out.
      const given: number[] = [];
      const server = createEnvServer({
        envs: [
          { envId: 'alfworld', createEnv: (o) => createAlfworldEnv(o), tasks: createGeneratedTaskSource() },
        ],
        reward: (input) => {
          const outcome = envReward(input);
          const reward = outcome > 0 ? outcome : input.result.info.valid ? SHAPING : 0;
          given.push(reward);
          return reward;
        },
      });
      try {
        const url = await server.listen(0, '127.0.0.1');
        const out = join(scratch, 'run.json');
        const run = await runRecipe(url, out);
        expect(run.status, run.stdout + run.stderr.slice(-4000)).toBe(0);
        const summary = JSON.parse(readFileSync(out, 'utf8')) as Summary;
        // The recipe's JSON lines (model, then one per step) for the log, without TRL's own.
        console.log(
          run.stdout
            .split('\n')
            .filter((line) => line.startsWith('{"'))
            .join('\n'),
        );

        // One line per training step, each with a reward per rollout, as TRL itself logged them.
        expect(summary.steps.map((s) => s.step)).toEqual([1, 2, 3]);
        for (const step of summary.steps) {
          expect(step.rewards).toHaveLength(ROLLOUTS);
          for (const reward of step.rewards) expect(reward).toBeGreaterThanOrEqual(0);
          const mean = step.rewards.reduce((a, b) => a + b, 0) / ROLLOUTS;
          expect(step.trl_reward_mean).toBeCloseTo(mean, 6);
        }

        // Each rollout's reward is the sum of our server's step replies, and agrees with the
        // server's own account of the episode (its `state`).
        const episodes = summary.episodes;
        expect(episodes).toHaveLength(STEPS * ROLLOUTS);
        for (const episode of episodes) {
          expect(episode.task_id).toMatch(/^gen\//);
          for (const reward of episode.rewards) expect([0, SHAPING, 1]).toContain(reward);
          expect(episode.rewards).toHaveLength(episode.commands.length);
          expect(episode.server_step_count).toBe(episode.commands.length);
          expect(episode.reward).toBeCloseTo(
            episode.rewards.reduce((a, b) => a + b, 0),
            9,
          );
          expect(episode.server_total_reward).toBeCloseTo(episode.reward, 9);
        }

        // Every command the model sent was a step on our server, and every reward it logged is one
        // the server gave: as many, the same values.
        const commands = episodes.reduce((n, e) => n + e.commands.length, 0);
        expect(commands).toBeGreaterThan(0);
        expect(server.metrics().steps.total).toBe(commands);
        expect(given).toHaveLength(commands);
        expect(episodes.flatMap((e) => e.rewards).sort()).toEqual([...given].sort());
        // And they moved the weights: some group of rollouts differed, so GRPO had a gradient.
        expect(summary.steps.some((s) => s.grad_norm > 0)).toBe(true);
        // One session per rollout plus the recipe's opening resets, all closed at the end (the last
        // close frames may land just after the process exits).
        await vi.waitFor(() => expect(server.metrics().sessions.open).toBe(0), { timeout: 5000 });
        const { sessions, errors } = server.metrics();
        expect(sessions.created).toBe(STEPS * ROLLOUTS + TASKS);
        expect(errors.by_kind).toEqual({});
      } finally {
        await server.close();
      }
    },
    DEADLINE_MS + 30_000,
  );
});
