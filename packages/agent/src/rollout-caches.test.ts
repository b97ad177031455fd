import { corridorTasks, createCorridorEnv } from '@pilotrl/env-testkit';
import { TfjsPolicy, Tokenizer } from '@pilotrl/policy-tfjs';
import { describe, expect, it } from 'vitest';
import { createReActAgent } from './agent';
import { evaluate } from './evaluate';
import { createVectorEnv } from './vector-env';

/** A small random policy that keeps the prompts it scores (its prefix cache on). */
async function cachingPolicy(): Promise<TfjsPolicy> {
  const first = await createCorridorEnv().reset({ seed: 0, taskId: 'valid_seen-0' });
  return TfjsPolicy.create({
    tokenizer: Tokenizer.train([first.observation, ...first.admissibleActions], { vocabSize: 300 }),
    model: { dModel: 32, nLayers: 2, nHeads: 2, contextLength: 512, seed: 3 },
    prefixCacheBytes: 2 ** 22,
  });
}

/** Four seeded corridor episodes, each turn's action chosen in the growing conversation. */
async function evaluation(policy: TfjsPolicy) {
  const agent = createReActAgent(policy.sampler(), {
    actionSpace: 'choice',
    maxTurns: 6,
    contextTokens: 512,
  });
  const vectorEnv = createVectorEnv(() => createCorridorEnv({ maxSteps: 6 }), { size: 4 });
  try {
    const report = await evaluate(agent, { taskSource: corridorTasks, vectorEnv }, 'valid_seen', {
      limit: 4,
      seed: 11,
    });
    return report.episodeRecords;
  } finally {
    await vectorEnv.close();
  }
}

describe('a rollout on a policy with caches', () => {
  it('plays the same episodes, logprobs and all, whatever the policy answered before', async () => {
    const policy = await cachingPolicy();
    const fresh = await cachingPolicy();
    try {
      const first = await evaluation(policy);
      const second = await evaluation(policy);
      const third = await evaluation(fresh);
      expect(first.flatMap((episode) => episode.turns).length).toBeGreaterThan(4);
      expect(second).toEqual(first);
      expect(third).toEqual(first);
    } finally {
      policy.dispose();
      fresh.dispose();
    }
  });
});
