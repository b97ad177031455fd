// Each estimator learns the testkit corridor from scratch with a small tfjs transformer: success
// on 32 fixed training tasks (4 samples each) rises well above the untrained policy's. Seeded, so
// the outcome is the same on every run of the same backend.
import { CORRIDOR_ENV_ID, corridorTasks, createCorridorEnv } from '@pilotrl/env-testkit';
import { TfjsPolicy, Tokenizer } from '@pilotrl/policy-tfjs';
import { describe, expect, it } from 'vitest';
import { playChoices } from '../test/play-choices';
import { createUpdateStep, type UpdateConfig } from './index';

const createEnv = () => createCorridorEnv({ maxSteps: 8 });

async function setup(valueHead: boolean) {
  const tasks = await corridorTasks.tasks('train', { limit: 32 });
  const corpus: string[] = [];
  for (const task of tasks) {
    const first = await createEnv().reset({ seed: task.seed, taskId: task.taskId });
    corpus.push(first.observation, ...first.admissibleActions);
  }
  const policy = await TfjsPolicy.create({
    tokenizer: Tokenizer.train(corpus, { vocabSize: 400 }),
    model: { dModel: 32, nLayers: 1, nHeads: 2, contextLength: 128, valueHead, seed: 1 },
    backend: 'wasm',
  });
  const successRate = async () => {
    const episodes = await playChoices(policy.sampler(), {
      envId: CORRIDOR_ENV_ID,
      createEnv,
      tasks,
      groupSize: 4,
      seed: 999,
      contextTokens: 128,
    });
    return episodes.filter((episode) => episode.won).length / episodes.length;
  };
  return { policy, tasks, successRate };
}

async function train(config: Omit<UpdateConfig, 'adam'>, iterations: number) {
  const { policy, tasks, successRate } = await setup(config.estimator === 'gae');
  const update = createUpdateStep({
    ...config,
    epochs: 2,
    minibatches: 2,
    adam: { learningRate: 1e-2, gradClipNorm: 1 },
  });
  const before = await successRate();
  const history: Record<string, number>[] = [];
  for (let iteration = 0; iteration < iterations; iteration++) {
    const batch = Array.from({ length: 8 }, (_, k) => tasks[(iteration * 8 + k) % tasks.length]!);
    const episodes = await playChoices(policy.sampler(), {
      envId: CORRIDOR_ENV_ID,
      createEnv,
      tasks: batch,
      groupSize: 8,
      seed: iteration,
      contextTokens: 128,
    });
    history.push((await update(policy, episodes)).metrics);
    // The work above is synchronous tensor code; let the test runner's messages through.
    await new Promise((resolve) => setImmediate(resolve));
  }
  const after = await successRate();
  policy.dispose();
  return { before, after, history };
}

describe('learning the corridor from scratch', () => {
  for (const [name, config] of [
    ['grpo', { estimator: 'grpo', lossArgs: { dualClip: 3 } }],
    ['rloo', { estimator: 'rloo' }],
    ['reinforce++', { estimator: 'reinforce++', estimatorArgs: { groupBaseline: true } }],
    ['gae (ppo with a value head)', { estimator: 'gae' }],
    ['turn-level', { estimator: 'turn-level' }],
  ] as const) {
    it(`${name} more than doubles the success rate`, async () => {
      const { before, after } = await train(config, 20);
      expect(before).toBeLessThan(0.15);
      expect(after).toBeGreaterThan(2 * before);
    }, 120_000);
  }

  it('gives the same metrics for the same seed', async () => {
    const first = await train({ estimator: 'grpo' }, 2);
    const second = await train({ estimator: 'grpo' }, 2);
    expect(second.history).toEqual(first.history);
    expect(second.after).toBe(first.after);
  }, 120_000);
});
