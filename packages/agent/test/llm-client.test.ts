// Rollouts through the OpenAI-compatible client against a real chat-completions server on
// localhost, which serves the scripted expert: the same episodes as in process, over HTTP.
import { createKeyDoorEnv, KEY_DOOR_ENV_ID, keyDoorTasks } from '@pilotrl/env-testkit';
import { createChatClient, createChatCompletionsServer } from '@pilotrl/llm';
import { afterEach, describe, expect, it } from 'vitest';
import { createAdaPlanAgent, createReActAgent } from '../src/agent';
import { fixedPlanProvider } from '../src/plan-providers';
import { rollout } from '../src/rollout';
import { createVectorEnv } from '../src/vector-env';
import { createExpert } from './expert-policy';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

describe('rollouts through the chat-completions client', () => {
  it('plays AdaPlan with a plan choice and ReAct over HTTP', async () => {
    const tasks = await keyDoorTasks.tasks('valid_unseen', { limit: 2 });
    const expert = await createExpert(keyDoorTasks, createKeyDoorEnv, tasks);
    const server = createChatCompletionsServer({ policy: expert.policy, modelName: 'expert' });
    const baseUrl = await server.listen(0, '127.0.0.1');
    closers.push(() => server.close());
    const client = createChatClient({ baseUrl, model: 'expert', dialect: 'vllm', policyVersion: 7 });

    const plans = Object.fromEntries(
      tasks.map((task) => [task.taskId, [['Wander.'], expert.solutions.get(task.taskId)!.plan]]),
    );
    const adaplan = createAdaPlanAgent(client, {
      planSource: { kind: 'provided', source: 'llm', provider: fixedPlanProvider(plans) },
    });
    const vectorEnv = createVectorEnv(createKeyDoorEnv, { size: 4 });
    const planned = await rollout(adaplan, vectorEnv, { envId: KEY_DOOR_ENV_ID, tasks, groupSize: 2 });
    const reacted = await rollout(createReActAgent(client), vectorEnv, {
      envId: KEY_DOOR_ENV_ID,
      tasks,
      groupSize: 2,
    });

    for (const episode of [...planned, ...reacted]) {
      expect(episode.won).toBe(true);
      expect(episode.turns.map((turn) => turn.action)).toEqual(expert.solutions.get(episode.taskId)!.actions);
      for (const generation of episode.turns.flatMap((turn) => turn.generations)) {
        expect(generation.policyVersion).toBe(7);
        const completion = generation.tokenIds.filter((_, index) => generation.lossMask[index] === 1);
        expect(Buffer.from(completion).toString('utf8')).toBe(generation.text);
      }
    }
    for (const episode of planned) {
      expect(episode.planHistory[0]).toMatchObject({ turn: 0, source: 'llm' });
      expect(episode.planHistory[0]!.steps).toEqual(expert.solutions.get(episode.taskId)!.plan);
      expect(episode.turns[0]!.generations[0]!.finishReason).toBe('choice');
    }
  });
});
