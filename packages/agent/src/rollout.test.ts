import { type Episode, episodeSchema, type Policy, type TaskRef, TimeoutError } from '@pilotrl/core';
import {
  CORRIDOR_ENV_ID,
  corridorTasks,
  createCorridorEnv,
  createKeyDoorEnv,
  KEY_DOOR_ENV_ID,
  keyDoorTasks,
} from '@pilotrl/env-testkit';
import { describe, expect, it } from 'vitest';
import { createExpert } from '../test/expert-policy';
import { createAdaPlanAgent, createReActAgent } from './agent';
import { fixedPlanProvider, oraclePlanProvider } from './plan-providers';
import { rollout } from './rollout';
import { createVectorEnv } from './vector-env';

const corridor = async (count: number) => corridorTasks.tasks('valid_seen', { limit: count });
const keyDoor = async (count: number) => keyDoorTasks.tasks('train', { limit: count });

function checkGenerations(episode: Episode, version: number) {
  for (const turn of episode.turns) {
    for (const generation of turn.generations) {
      expect(generation.policyVersion).toBe(version);
      const firstModelToken = generation.lossMask.indexOf(1);
      expect(firstModelToken).toBeGreaterThan(0);
      // Prompt tokens are masked out, every completion token is in.
      expect(generation.lossMask.slice(0, firstModelToken).every((bit) => bit === 0)).toBe(true);
      expect(generation.lossMask.slice(firstModelToken).every((bit) => bit === 1)).toBe(true);
      const completion = Buffer.from(generation.tokenIds.slice(firstModelToken)).toString('utf8');
      expect(completion).toBe(generation.text);
      expect(generation.logprobs.slice(0, firstModelToken).every((value) => value === 0)).toBe(true);
    }
  }
}

describe('ReAct rollouts', () => {
  it('plays N tasks × G samples in lock-step with one policy call per turn for all live episodes', async () => {
    const tasks = await corridor(3);
    const expert = await createExpert(corridorTasks, createCorridorEnv, tasks);
    const agent = createReActAgent(expert.policy);
    const vectorEnv = createVectorEnv(createCorridorEnv, { size: 6 });
    const episodes = await rollout(agent, vectorEnv, { envId: CORRIDOR_ENV_ID, tasks, groupSize: 2 });

    expect(episodes).toHaveLength(6);
    for (const episode of episodes) episodeSchema.parse(episode);
    expect(episodes.every((episode) => episode.won && episode.terminated && !episode.truncated)).toBe(true);
    expect(episodes.map((e) => [e.taskId, e.sampleIndex])).toEqual(
      tasks.flatMap((t) => [
        [t.taskId, 0],
        [t.taskId, 1],
      ]),
    );
    expect(episodes[0]!.groupId).toBe(episodes[1]!.groupId);
    expect(episodes[0]!.groupId).not.toBe(episodes[2]!.groupId);
    expect(episodes[0]!.seed).toBe(episodes[1]!.seed);

    const lengths = episodes.map((episode) => episode.turns.length);
    for (const episode of episodes) {
      expect(episode.turns.map((turn) => turn.action)).toEqual(expert.solutions.get(episode.taskId)!.actions);
    }
    // One call per turn; each call carries exactly the episodes still running at that turn.
    expect(expert.calls).toHaveLength(Math.max(...lengths));
    expect(expert.calls).toEqual(
      Array.from(
        { length: Math.max(...lengths) },
        (_, turn) => lengths.filter((length) => length > turn).length,
      ),
    );
    for (const episode of episodes) checkGenerations(episode, 3);
    expect(episodes[0]!.metadata.endReason).toBe('env_done');
  });

  it('runs more tasks than the vector env holds in waves', async () => {
    const tasks = await corridor(5);
    const expert = await createExpert(corridorTasks, createCorridorEnv, tasks);
    const vectorEnv = createVectorEnv(createCorridorEnv, { size: 4 });
    const episodes = await rollout(createReActAgent(expert.policy), vectorEnv, {
      envId: CORRIDOR_ENV_ID,
      tasks,
      groupSize: 2,
    });
    expect(episodes.map((episode) => episode.taskId)).toEqual(
      tasks.flatMap((task) => [task.taskId, task.taskId]),
    );
    expect(episodes.every((episode) => episode.won)).toBe(true);
  });

  it('maps a loosely written action onto the admissible command', async () => {
    const tasks = await corridor(1);
    const expert = await createExpert(corridorTasks, createCorridorEnv, tasks, {
      edit: (reply, { kind }) =>
        kind === 'act'
          ? reply
              .replace(/<action>(.*)<\/action>/, '<action> "$1." </action>')
              .toUpperCase()
              .replace(/<(\/?)([A-Z]+)>/g, (_m, slash, tag) => `<${slash}${tag.toLowerCase()}>`)
          : reply,
    });
    const [episode] = await rollout(
      createReActAgent(expert.policy),
      createVectorEnv(createCorridorEnv, { size: 1 }),
      {
        envId: CORRIDOR_ENV_ID,
        tasks,
      },
    );
    expect(episode!.won).toBe(true);
    expect(episode!.metadata.actionMatches).toEqual({ normalized: episode!.turns.length });
  });

  it('records format errors with a penalty and goes on without stepping the env', async () => {
    const tasks = await corridor(1);
    const expert = await createExpert(corridorTasks, createCorridorEnv, tasks, {
      edit: (reply, { step, kind }) =>
        kind === 'act' && step === 1 ? reply.replace('</thought>', '') : reply,
    });
    const agent = createReActAgent(expert.policy, { formatError: { mode: 'penalty', penalty: -0.5 } });
    const [episode] = await rollout(agent, createVectorEnv(createCorridorEnv, { size: 1 }), {
      envId: CORRIDOR_ENV_ID,
      tasks,
    });
    const bad = episode!.turns[1]!;
    expect(bad.formatError).toMatch(/^nested_tag/);
    expect(bad.action).toBeNull();
    expect(bad.rewards).toEqual({ format_penalty: -0.5 });
    // The env was not stepped: the next turn sees the same observation.
    expect(episode!.turns[2]!.observation).toBe(bad.observation);
    expect(episode!.rewardComponents.format_penalty).toBe(-0.5);
  });

  it('ends the episode on a format error in terminate mode', async () => {
    const tasks = await corridor(2);
    const expert = await createExpert(corridorTasks, createCorridorEnv, tasks, {
      edit: (reply, { step }) => (step === 0 ? `Sure. ${reply}` : reply),
    });
    const agent = createReActAgent(expert.policy, { formatError: { mode: 'terminate' } });
    const episodes = await rollout(agent, createVectorEnv(createCorridorEnv, { size: 2 }), {
      envId: CORRIDOR_ENV_ID,
      tasks,
    });
    for (const episode of episodes) {
      expect(episode.turns).toHaveLength(1);
      expect(episode.turns[0]!.formatError).toMatch(/^text_outside_tags/);
      expect(episode.won).toBe(false);
      expect(episode.truncated).toBe(true);
      expect(episode.metadata.endReason).toBe('format_error');
    }
    expect(expert.calls).toEqual([2]);
  });

  it('cuts episodes at maxTurns', async () => {
    const tasks = await corridor(1);
    const expert = await createExpert(corridorTasks, createCorridorEnv, tasks, {
      edit: (reply) => reply.replace(/<action>.*<\/action>/, '<action>look</action>'),
    });
    const [episode] = await rollout(
      createReActAgent(expert.policy, { maxTurns: 3 }),
      createVectorEnv(createCorridorEnv, { size: 1 }),
      { envId: CORRIDOR_ENV_ID, tasks },
    );
    expect(episode!.turns).toHaveLength(3);
    expect(episode!.truncated).toBe(true);
    expect(episode!.metadata.endReason).toBe('max_turns');
  });

  it('fails with a TimeoutError when the policy does not answer in time', async () => {
    const tasks = await corridor(1);
    const silent: Policy = { name: 'silent', version: 0, generate: () => new Promise(() => undefined) };
    await expect(
      rollout(
        createReActAgent(silent, { callTimeoutMs: 20 }),
        createVectorEnv(createCorridorEnv, { size: 1 }),
        {
          envId: CORRIDOR_ENV_ID,
          tasks,
        },
      ),
    ).rejects.toSatisfy((error) => TimeoutError.isInstance(error) && /silent/.test((error as Error).message));
  });

  it('keeps prompts inside the context budget by dropping old turns', async () => {
    const tasks = await corridor(1);
    const expert = await createExpert(corridorTasks, createCorridorEnv, tasks);
    const agent = createReActAgent(expert.policy, { historyTurns: 1, contextTokens: 4096 });
    const [episode] = await rollout(agent, createVectorEnv(createCorridorEnv, { size: 1 }), {
      envId: CORRIDOR_ENV_ID,
      tasks,
    });
    // With one turn of history the expert cannot count its steps, so it repeats its second move.
    const last = expert.policy.requests[expert.policy.requests.length - 1]!;
    expect(last.messages.filter((message) => message.role === 'assistant')).toHaveLength(1);
    expect(episode!.metadata.omittedTurnsMax).toBeGreaterThan(0);
  });

  it('ends an episode whose prompt cannot fit the context window', async () => {
    const tasks = await corridor(1);
    const expert = await createExpert(corridorTasks, createCorridorEnv, tasks);
    const agent = createReActAgent(expert.policy, { contextTokens: 200, act: { maxTokens: 190 } });
    const [episode] = await rollout(agent, createVectorEnv(createCorridorEnv, { size: 1 }), {
      envId: CORRIDOR_ENV_ID,
      tasks,
    });
    expect(episode!.metadata.endReason).toBe('context_overflow');
    expect(expert.calls).toEqual([]);
  });
});

describe('AdaPlan rollouts', () => {
  const planCalls = (expert: { policy: { requests: readonly { kind?: 'plan' | 'act' }[] } }) =>
    expert.policy.requests.filter((request) => request.kind === 'plan').length;

  it('writes a plan first, then acts, with one batched call per phase', async () => {
    const tasks = await keyDoor(2);
    const expert = await createExpert(keyDoorTasks, createKeyDoorEnv, tasks);
    const agent = createAdaPlanAgent(expert.policy, { revision: { mode: 'never' } });
    const episodes = await rollout(agent, createVectorEnv(createKeyDoorEnv, { size: 4 }), {
      envId: KEY_DOOR_ENV_ID,
      tasks,
      groupSize: 2,
    });
    expect(episodes.every((episode) => episode.won)).toBe(true);
    for (const episode of episodes) {
      const solution = expert.solutions.get(episode.taskId)!;
      expect(episode.planHistory).toEqual([
        { turn: 0, steps: solution.plan, source: 'policy', fixedSteps: 0 },
      ]);
      expect(episode.turns[0]!.generations.map((g) => g.kind)).toEqual(['plan', 'act']);
      expect(episode.turns[1]!.generations.map((g) => g.kind)).toEqual(['act']);
      checkGenerations(episode, 3);
    }
    const longest = Math.max(...episodes.map((episode) => episode.turns.length));
    expect(expert.calls).toHaveLength(longest + 1);
    expect(expert.calls[0]).toBe(4);
    expect(planCalls(expert)).toBe(4);
    // Every request says what it asks for, so a policy never reads it from the stop strings.
    expect(expert.policy.requests.filter((request) => request.kind === 'act')).toHaveLength(
      expert.policy.requests.length - 4,
    );
  });

  it('revises every turn by default and keeps the executed steps fixed', async () => {
    const tasks = await keyDoor(1);
    let revisions = 0;
    const expert = await createExpert(keyDoorTasks, createKeyDoorEnv, tasks, {
      // Each revision rewrites every step, including the executed ones.
      edit: (reply, { kind, step }) => {
        if (kind !== 'plan' || step === 0) return reply;
        revisions += 1;
        return reply.replace(/Step (\d+): (.*)/g, (_m, n, body) => `Step ${n}: ${body} (rev ${step})`);
      },
    });
    const agent = createAdaPlanAgent(expert.policy);
    const [episode] = await rollout(agent, createVectorEnv(createKeyDoorEnv, { size: 1 }), {
      envId: KEY_DOOR_ENV_ID,
      tasks,
    });
    const turns = episode!.turns.length;
    expect(revisions).toBe(turns - 1);
    expect(planCalls(expert)).toBe(turns);
    const original = expert.solutions.get(episode!.taskId)!.plan;
    for (const revision of episode!.planHistory.slice(1)) {
      const previous = episode!.planHistory[episode!.planHistory.indexOf(revision) - 1]!;
      expect(revision.steps.slice(0, revision.fixedSteps)).toEqual(
        previous.steps.slice(0, revision.fixedSteps),
      );
      expect(
        revision.steps.slice(revision.fixedSteps).every((step) => step.endsWith(`(rev ${revision.turn})`)),
      ).toBe(true);
    }
    expect(episode!.planHistory.at(-1)!.fixedSteps).toBeGreaterThan(0);
    expect(episode!.planHistory.at(-1)!.steps.length).toBe(original.length);
    expect(episode!.metadata.fixedStepEdits).toBeGreaterThan(0);
  });

  it('revises every k turns', async () => {
    const tasks = await keyDoor(1);
    const expert = await createExpert(keyDoorTasks, createKeyDoorEnv, tasks);
    const [episode] = await rollout(
      createAdaPlanAgent(expert.policy, { revision: { mode: 'every_k', k: 2 } }),
      createVectorEnv(createKeyDoorEnv, { size: 1 }),
      { envId: KEY_DOOR_ENV_ID, tasks },
    );
    const withPlan = episode!.turns
      .filter((turn) => turn.generations[0]!.kind === 'plan')
      .map((turn) => turn.index);
    expect(withPlan).toEqual(episode!.turns.map((turn) => turn.index).filter((index) => index % 2 === 0));
  });

  it('follows the oracle plan without a plan generation (stage 1)', async () => {
    const tasks = await keyDoor(2);
    const expert = await createExpert(keyDoorTasks, createKeyDoorEnv, tasks);
    const agent = createAdaPlanAgent(expert.policy, {
      planSource: { kind: 'provided', source: 'oracle', provider: oraclePlanProvider(keyDoorTasks) },
      revision: { mode: 'never' },
    });
    const episodes = await rollout(agent, createVectorEnv(createKeyDoorEnv, { size: 2 }), {
      envId: KEY_DOOR_ENV_ID,
      tasks,
    });
    for (const episode of episodes) {
      expect(episode.won).toBe(true);
      expect(episode.planHistory).toEqual([
        { turn: 0, steps: expert.solutions.get(episode.taskId)!.plan, source: 'oracle', fixedSteps: 0 },
      ]);
      expect(episode.turns.flatMap((turn) => turn.generations).every((g) => g.kind === 'act')).toBe(true);
    }
    expect(planCalls(expert)).toBe(0);
    // The plan in force is shown in every act prompt.
    expect(
      expert.policy.requests.every((request) => request.messages.at(-1)!.content.includes('<global_plan>')),
    ).toBe(true);
  });

  it('lets the policy choose among candidate plans with a constrained choice', async () => {
    const tasks = await keyDoor(2);
    const expert = await createExpert(keyDoorTasks, createKeyDoorEnv, tasks);
    const plans = Object.fromEntries(
      tasks.map((task: TaskRef) => [
        task.taskId,
        [['Wander around.'], expert.solutions.get(task.taskId)!.plan],
      ]),
    );
    const agent = createAdaPlanAgent(expert.policy, {
      planSource: { kind: 'provided', source: 'llm', provider: fixedPlanProvider(plans) },
      revision: { mode: 'never' },
    });
    const episodes = await rollout(agent, createVectorEnv(createKeyDoorEnv, { size: 2 }), {
      envId: KEY_DOOR_ENV_ID,
      tasks,
    });
    expect(expert.calls[0]).toBe(2);
    const choiceRequests = expert.policy.requests.filter((request) => request.choices !== undefined);
    expect(choiceRequests).toHaveLength(2);
    for (const episode of episodes) {
      expect(episode.planHistory[0]!.source).toBe('llm');
      expect(episode.planHistory[0]!.steps).toEqual(expert.solutions.get(episode.taskId)!.plan);
      expect(episode.turns[0]!.generations[0]!.finishReason).toBe('choice');
      expect(episode.won).toBe(true);
    }
  });

  it('penalises a malformed plan and acts without one', async () => {
    const tasks = await keyDoor(1);
    const expert = await createExpert(keyDoorTasks, createKeyDoorEnv, tasks, {
      edit: (reply, { kind }) => (kind === 'plan' ? reply.replace('Step 2', 'Step 5') : reply),
    });
    const [episode] = await rollout(
      createAdaPlanAgent(expert.policy, { revision: { mode: 'never' } }),
      createVectorEnv(createKeyDoorEnv, { size: 1 }),
      { envId: KEY_DOOR_ENV_ID, tasks },
    );
    expect(episode!.turns[0]!.formatError).toMatch(/^plan step_numbering/);
    expect(episode!.turns[0]!.action).not.toBeNull();
    expect(episode!.planHistory).toEqual([]);
    expect(episode!.won).toBe(true);
  });
});

describe('policy contract checks', () => {
  const answer = (text: string) => ({
    text,
    tokenIds: [],
    logprobs: [],
    promptTokenIds: [],
    finishReason: 'stop' as const,
    policyVersion: 0,
  });

  it('rejects a policy that answers the wrong number of requests', async () => {
    const tasks = await corridor(2);
    const short: Policy = {
      name: 'short',
      version: 0,
      generate: async () => [answer('<thought>a</thought><action>look</action>')],
    };
    await expect(
      rollout(createReActAgent(short), createVectorEnv(createCorridorEnv, { size: 2 }), {
        envId: CORRIDOR_ENV_ID,
        tasks,
      }),
    ).rejects.toThrow(/returned 1 results for 2 act requests/);
  });

  it('rejects a plan choice that is none of the choices', async () => {
    const tasks = await keyDoor(1);
    const wayward: Policy = {
      name: 'wayward',
      version: 0,
      generate: async (requests) => requests.map(() => answer('<global_plan>Step 1: mine</global_plan>')),
    };
    const agent = createAdaPlanAgent(wayward, {
      planSource: {
        kind: 'provided',
        source: 'external',
        provider: fixedPlanProvider({ [tasks[0]!.taskId]: [['a'], ['b']] }),
      },
    });
    await expect(
      rollout(agent, createVectorEnv(createKeyDoorEnv, { size: 1 }), { envId: KEY_DOOR_ENV_ID, tasks }),
    ).rejects.toThrow(/neither a valid choiceIndex nor one of the choices/);
  });
});
