// The `choice` action space with a real (untrained, so random) transformer: every turn is one of
// the admissible commands, with the exact constrained logprob and the allowed-token sets, on the
// testkit envs and on ALFWorld with its state view; and what a broken policy or env does.
import {
  episodeSchema,
  InvalidArgumentError,
  latestObservationView,
  type PlanStepVocabulary,
  type Policy,
  type StepResult,
  type TextEnv,
} from '@pilotrl/core';
import {
  ALFWORLD_ENV_ID,
  AlfworldEnv,
  alfworldStateView,
  createGeneratedTaskSource,
} from '@pilotrl/env-alfworld';
import {
  CORRIDOR_ENV_ID,
  corridorTasks,
  createCorridorEnv,
  createKeyDoorEnv,
  KEY_DOOR_ENV_ID,
  keyDoorTasks,
} from '@pilotrl/env-testkit';
import { TfjsPolicy, Tokenizer } from '@pilotrl/policy-tfjs';
import { describe, expect, it } from 'vitest';
import { createAdaPlanAgent, createReActAgent } from '../src/agent';
import { fixedPlanProvider } from '../src/plan-providers';
import { rollout } from '../src/rollout';
import { createVectorEnv } from '../src/vector-env';

async function randomPolicy(corpus: string[], contextLength = 256) {
  return TfjsPolicy.create({
    tokenizer: Tokenizer.train(corpus, { vocabSize: 400 }),
    model: { dModel: 16, nLayers: 1, nHeads: 2, contextLength, seed: 11 },
  });
}

const choosing = { actionSpace: 'choice', contextTokens: 256, act: { maxTokens: 16 } } as const;

describe('the choice action space', () => {
  it('never produces a malformed turn over thousands of turns of a random policy', async () => {
    const corridor = await corridorTasks.tasks('train', { limit: 32 });
    const keyDoor = await keyDoorTasks.tasks('train', { limit: 32 });
    const first = await createKeyDoorEnv().reset({ seed: keyDoor[0]!.seed, taskId: keyDoor[0]!.taskId });
    const model = await randomPolicy([first.observation, ...first.admissibleActions]);
    let turns = 0;
    for (const [envId, createEnv, tasks] of [
      [CORRIDOR_ENV_ID, () => createCorridorEnv({ maxSteps: 60 }), corridor],
      [KEY_DOOR_ENV_ID, () => createKeyDoorEnv({ maxSteps: 60 }), keyDoor],
    ] as const) {
      const agent = createReActAgent(model.sampler(), {
        ...choosing,
        view: latestObservationView,
        maxTurns: 60,
      });
      const vectorEnv = createVectorEnv(createEnv, { size: 64 });
      const episodes = await rollout(agent, vectorEnv, { envId, tasks, groupSize: 2, seed: 3 });
      for (const episode of episodes) {
        episodeSchema.parse(episode);
        expect(episode.metadata.actionSpace).toBe('choice');
        for (const turn of episode.turns) {
          turns += 1;
          expect(turn.formatError).toBeNull();
          expect(turn.admissibleActions).toContain(turn.action);
          const [generation] = turn.generations;
          expect(generation!.text).toBe(turn.action);
          const completion = generation!.lossMask.indexOf(1);
          // Every completion token was chosen among its allowed set; the logprob is normalised over it.
          for (let t = completion; t < generation!.tokenIds.length; t++) {
            expect(generation!.allowedTokenIds![t]).toContain(generation!.tokenIds[t]);
            expect(generation!.logprobs[t]).toBeLessThanOrEqual(0);
          }
        }
      }
      await vectorEnv.close();
    }
    expect(turns).toBeGreaterThan(2_000);
    model.dispose();
  });

  it('plays ALFWorld through its state view, the prompt rebuilt from the goal every turn', async () => {
    const source = createGeneratedTaskSource();
    const tasks = await source.tasks('valid_seen', { limit: 4 });
    const opening = await new AlfworldEnv().reset({ seed: tasks[0]!.seed, taskId: tasks[0]!.taskId });
    const model = await randomPolicy([opening.observation, ...opening.admissibleActions], 2048);
    const seen: string[] = [];
    const sampler = model.sampler();
    const recording: Policy = {
      name: sampler.name,
      get version() {
        return sampler.version;
      },
      generate: (requests) => {
        seen.push(...requests.map((request) => request.messages.map((m) => m.content).join('|')));
        return sampler.generate(requests);
      },
    };
    const agent = createReActAgent(recording, {
      ...choosing,
      contextTokens: 2048,
      view: alfworldStateView,
      maxTurns: 6,
    });
    const vectorEnv = createVectorEnv(() => new AlfworldEnv({ maxSteps: 6 }), { size: 4 });
    const goal = 'put a mug in fridge.';
    const episodes = await rollout(agent, vectorEnv, {
      envId: ALFWORLD_ENV_ID,
      tasks,
      goals: [goal, null, null, null],
    });
    expect(episodes[0]!.task).toBe(goal);
    const second = await new AlfworldEnv().reset({ seed: tasks[1]!.seed, taskId: tasks[1]!.taskId });
    expect(episodes[1]!.task).toBe(second.info.task);
    for (const episode of episodes) {
      expect(episode.turns.every((turn) => turn.valid && turn.admissibleActions.includes(turn.action!))).toBe(
        true,
      );
    }
    // One user message per request, starting with the goal; after a turn it shows the last command.
    expect(seen.every((prompt) => !prompt.includes('|'))).toBe(true);
    expect(seen[0]!.startsWith(`${goal}\nholding: nothing\nvisited: none`)).toBe(true);
    expect(seen.at(-1)).toMatch(/\n> \S/);
    await vectorEnv.close();
    model.dispose();
  });

  it('shows an AdaPlan agent its plan before each choice', async () => {
    const tasks = await keyDoorTasks.tasks('train', { limit: 1 });
    const first = await createKeyDoorEnv().reset({ seed: tasks[0]!.seed, taskId: tasks[0]!.taskId });
    const model = await randomPolicy([first.observation, ...first.admissibleActions], 2048);
    const prompts: string[] = [];
    const sampler = model.sampler();
    const agent = createAdaPlanAgent(
      {
        name: 'recording',
        version: 0,
        generate: (requests) => {
          prompts.push(...requests.map((r) => r.messages.at(-1)!.content));
          return sampler.generate(requests);
        },
      },
      {
        ...choosing,
        maxTurns: 2,
        contextTokens: 2048,
        planSource: {
          kind: 'provided',
          source: 'oracle',
          provider: fixedPlanProvider({ [tasks[0]!.taskId]: [['Find the key.', 'Open the door.']] }),
        },
      },
    );
    const vectorEnv = createVectorEnv(() => createKeyDoorEnv(), { size: 1 });
    const [episode] = await rollout(agent, vectorEnv, { envId: KEY_DOOR_ENV_ID, tasks });
    expect(episode!.turns).toHaveLength(2);
    expect(prompts[0]).toContain('Step 1: Find the key.');
    expect(prompts[0]).not.toContain('<action>');
    model.dispose();
  });

  it('writes plans in a vocabulary the test gives a testkit env, and counts the steps the actions carry out', async () => {
    const tasks = await keyDoorTasks.tasks('train', { limit: 8 });
    const first = await createKeyDoorEnv().reset({ seed: tasks[0]!.seed, taskId: tasks[0]!.taskId });
    const model = await randomPolicy([first.observation, ...first.admissibleActions], 2048);
    const done: Record<string, RegExp> = {
      'find the key': /^take .* key from /,
      'unlock the door': /^unlock door with /,
      'go through the door': /^go through door$/,
    };
    const planSteps: PlanStepVocabulary = {
      steps: () => Object.keys(done),
      executes: (step, action) => done[step]?.test(action) ?? false,
    };
    const agent = createAdaPlanAgent(model.sampler(), {
      ...choosing,
      contextTokens: 2048,
      view: latestObservationView,
      planSteps,
      maxPlanSteps: 3,
      maxTurns: 30,
      revision: { mode: 'every_k', k: 5 },
    });
    const vectorEnv = createVectorEnv(() => createKeyDoorEnv({ maxSteps: 30 }), { size: 16 });
    const episodes = await rollout(agent, vectorEnv, {
      envId: KEY_DOOR_ENV_ID,
      tasks,
      groupSize: 2,
      seed: 5,
    });
    for (const episode of episodes) {
      const plan = episode.planHistory.at(-1)!.steps;
      expect(plan.every((step) => step in done)).toBe(true);
      // The index counts plan steps in order, each only when an action carried it out.
      const executed = episode.metadata.executedSteps as number;
      expect(executed).toBeLessThanOrEqual(plan.length);
      if (executed > 0) expect(episode.turns.some((turn) => done[plan[0]!]!.test(turn.action!))).toBe(true);
    }
    expect(episodes.some((episode) => (episode.metadata.executedSteps as number) > 0)).toBe(true);
    model.dispose();
  });

  it('fails clearly when a policy answers with text that is not one of the choices', async () => {
    const tasks = await corridorTasks.tasks('train', { limit: 1 });
    const liar: Policy = {
      name: 'liar',
      version: 0,
      generate: async (requests) =>
        requests.map(() => ({
          text: 'dance',
          tokenIds: [],
          logprobs: [],
          promptTokenIds: [],
          finishReason: 'choice' as const,
          policyVersion: 0,
        })),
    };
    const vectorEnv = createVectorEnv(() => createCorridorEnv(), { size: 1 });
    await expect(
      rollout(createReActAgent(liar, choosing), vectorEnv, { envId: CORRIDOR_ENV_ID, tasks }),
    ).rejects.toThrow(InvalidArgumentError);
    await expect(
      rollout(createReActAgent(liar, choosing), vectorEnv, { envId: CORRIDOR_ENV_ID, tasks }),
    ).rejects.toThrow(/"dance".*not that choice/);
  });

  it('ends an episode whose env admits no command, and says so', async () => {
    const stuck = (): TextEnv => {
      const result = (observation: string, actions: string[]): StepResult => ({
        observation,
        admissibleActions: actions,
        reward: 0,
        terminated: false,
        truncated: false,
        info: { won: false, valid: true, task: 'leave the room' },
      });
      return {
        envId: 'stuck',
        reset: async () => result('A room with one door.', ['open door']),
        step: async () => result('The door is open, and there is nothing left to do.', []),
      };
    };
    const model = await randomPolicy(['open door', 'A room with one door.']);
    const vectorEnv = createVectorEnv(stuck, { size: 1 });
    const agent = createReActAgent(model.sampler(), { ...choosing, view: latestObservationView });
    const [episode] = await rollout(agent, vectorEnv, {
      envId: 'stuck',
      tasks: [{ taskId: 'room', split: 'train', seed: 0 }],
    });
    expect(episode!.turns.map((turn) => turn.action)).toEqual(['open door']);
    expect(episode!.metadata.endReason).toBe('no_actions');
    expect(episode!.metadata.envError).toMatch(/admits no command/);
    model.dispose();
  });

  it('rejects goals that do not line up with the tasks', async () => {
    const tasks = await corridorTasks.tasks('train', { limit: 2 });
    const vectorEnv = createVectorEnv(() => createCorridorEnv(), { size: 2 });
    const model = await randomPolicy(['north']);
    await expect(
      rollout(createReActAgent(model.sampler(), choosing), vectorEnv, {
        envId: CORRIDOR_ENV_ID,
        tasks,
        goals: ['reach the end'],
      }),
    ).rejects.toThrow(/goals must have one entry per task/);
    model.dispose();
  });
});
