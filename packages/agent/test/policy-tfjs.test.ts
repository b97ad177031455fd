// Rollouts with a real (untrained) transformer policy: token ids, loss masks and logprobs come
// from the model's own tokenizer and sampler, and plan choices from its constrained decoding.
import { episodeSchema } from '@pilotrl/core';
import { createKeyDoorEnv, KEY_DOOR_ENV_ID, keyDoorTasks } from '@pilotrl/env-testkit';
import { TfjsPolicy, Tokenizer } from '@pilotrl/policy-tfjs';
import { describe, expect, it } from 'vitest';
import { createAdaPlanAgent, createReActAgent } from '../src/agent';
import { fixedPlanProvider } from '../src/plan-providers';
import { defaultPromptTemplate } from '../src/prompt-templates';
import { rollout } from '../src/rollout';
import { createVectorEnv } from '../src/vector-env';

const CONTEXT = 768;

async function tinyPolicy() {
  const corpus = [defaultPromptTemplate.system('adaplan'), defaultPromptTemplate.system('react')];
  const tokenizer = Tokenizer.train(corpus, { vocabSize: 700 });
  const model = await TfjsPolicy.create({
    tokenizer,
    model: { dModel: 32, nLayers: 1, nHeads: 2, contextLength: CONTEXT, seed: 5 },
  });
  return model;
}

describe('rollouts with a policy-tfjs policy', () => {
  it('records the model tokens, masks and logprobs within its context window', async () => {
    const model = await tinyPolicy();
    const policy = model.sampler();
    const tasks = await keyDoorTasks.tasks('train', { limit: 2 });
    const plans = Object.fromEntries(
      tasks.map((task) => [task.taskId, [['Find the key.', 'Open the door.'], ['Look around.']]]),
    );
    const options = {
      maxTurns: 2,
      contextTokens: CONTEXT,
      historyTurns: 2,
      act: { maxTokens: 16 },
      plan: { maxTokens: 16 },
    };
    const adaplan = createAdaPlanAgent(policy, {
      ...options,
      planSource: { kind: 'provided', source: 'llm', provider: fixedPlanProvider(plans) },
      revision: { mode: 'never' },
    });
    const react = createReActAgent(policy, options);
    const vectorEnv = createVectorEnv(createKeyDoorEnv, { size: 4 });
    const episodes = [
      ...(await rollout(adaplan, vectorEnv, { envId: KEY_DOOR_ENV_ID, tasks, groupSize: 2, seed: 1 })),
      ...(await rollout(react, vectorEnv, { envId: KEY_DOOR_ENV_ID, tasks, groupSize: 2, seed: 1 })),
    ];
    expect(episodes).toHaveLength(8);
    for (const episode of episodes) {
      episodeSchema.parse(episode);
      expect(episode.turns.length).toBeGreaterThan(0);
      for (const generation of episode.turns.flatMap((turn) => turn.generations)) {
        expect(generation.tokenIds.length).toBeLessThanOrEqual(CONTEXT);
        const completion = generation.lossMask.filter((bit) => bit === 1).length;
        const start = generation.lossMask.indexOf(1);
        expect(start).toBeGreaterThan(0);
        expect(generation.lossMask.slice(start).every((bit) => bit === 1)).toBe(true);
        expect(generation.logprobs.slice(start).every((value) => value <= 0 && Number.isFinite(value))).toBe(
          true,
        );
        if (generation.finishReason !== 'choice') expect(completion).toBeLessThanOrEqual(16 + 1);
      }
    }
    for (const episode of episodes.slice(0, 4)) {
      const choice = episode.turns[0]!.generations[0]!;
      expect(choice.kind).toBe('plan');
      expect(choice.finishReason).toBe('choice');
      expect(episode.planHistory[0]!.source).toBe('llm');
      expect(plans[episode.taskId]).toContainEqual(episode.planHistory[0]!.steps);
    }
    // An untrained model rarely writes the format; whatever it writes is parsed, never thrown on.
    const turns = episodes.flatMap((episode) => episode.turns);
    expect(turns.every((turn) => turn.formatError !== null || turn.action !== null)).toBe(true);
    model.dispose();
  });

  it('repeats a rollout exactly from the same seed, and differs with another seed', async () => {
    const model = await tinyPolicy();
    const agent = createReActAgent(model.sampler(), {
      maxTurns: 2,
      contextTokens: CONTEXT,
      act: { maxTokens: 12 },
    });
    const tasks = await keyDoorTasks.tasks('valid_seen', { limit: 1 });
    const vectorEnv = createVectorEnv(createKeyDoorEnv, { size: 2 });
    const run = (seed: number) =>
      rollout(agent, vectorEnv, { envId: KEY_DOOR_ENV_ID, tasks, groupSize: 2, seed });
    const texts = (episodes: Awaited<ReturnType<typeof run>>) =>
      episodes.map((episode) => episode.turns.map((turn) => turn.generations[0]!.text));
    const first = await run(11);
    expect(await run(11)).toEqual(first);
    // Samples of one group differ, and so does another seed.
    expect(texts(first)[0]).not.toEqual(texts(first)[1]);
    expect(texts(await run(12))).not.toEqual(texts(first));
    model.dispose();
  });
});
