// The stage reward: the configured components by weight, with the agent's format-error penalty
// entering the sum for every malformed turn.
import { createVectorEnv, rollout } from '@pilotrl/agent';
import type { GenerateRequest, GenerateResult, Policy } from '@pilotrl/core';
import { describe, expect, it } from 'vitest';
import { envCurricula, parseConfig } from '../config/curriculum-config';
import { runEnvOf } from '../run/run-envs';
import { agentOptionsFor, createAgent } from '../run/run-setup';
import { oneJointStage } from '../tiny-corridor.testing';
import { createStageScorer } from './stage-rewards';

/** A policy that never writes the answer format. */
const rambling: Policy = {
  name: 'rambling',
  version: 0,
  async generate(requests: readonly GenerateRequest[]): Promise<GenerateResult[]> {
    return requests.map(() => ({
      text: 'I would rather not say.',
      tokenIds: [],
      logprobs: [],
      promptTokenIds: [],
      finishReason: 'stop',
      policyVersion: 0,
    }));
  },
};

describe('stage rewards', () => {
  it('charges agent.formatErrorPenalty for every malformed turn', async () => {
    const [{ config }] = envCurricula(
      parseConfig({
        env: { id: 'testkit/corridor', maxSteps: 4 },
        agent: { paradigm: 'react', formatErrorPenalty: 0.25 },
        stages: [oneJointStage],
      }),
    ) as [ReturnType<typeof envCurricula>[number]];
    const env = runEnvOf(config);
    const { provider } = env;
    const agent = createAgent(config, rambling, agentOptionsFor(config, { provider, temperature: 1 }));
    const vectorEnv = createVectorEnv(env.createEnv, { size: 1 });
    const tasks = await provider.tasks.tasks('train', { limit: 1 });
    const episodes = await rollout(agent, vectorEnv, { envId: provider.envId, tasks });
    await vectorEnv.close();
    const malformed = episodes[0]!.turns.filter((turn) => turn.formatError !== null).length;
    expect(malformed).toBeGreaterThan(0);
    await createStageScorer(config, config.stages[0]!, provider).score(episodes);
    expect(episodes[0]!.rewardComponents).toMatchObject({ outcome: 0, format_penalty: -0.25 * malformed });
    expect(episodes[0]!.reward).toBeCloseTo(-0.25 * malformed);
    expect(episodes[0]!.turns[0]!.rewards.format_penalty).toBe(-0.25);
  });
});
