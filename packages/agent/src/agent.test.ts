import { ConfigError, InvalidArgumentError } from '@pilotrl/core';
import { CORRIDOR_ENV_ID, corridorTasks, createCorridorEnv } from '@pilotrl/env-testkit';
import { createScriptedPolicy } from '@pilotrl/env-testkit/test';
import { describe, expect, it } from 'vitest';
import { createAdaPlanAgent, createReActAgent, revisionDue, thoughtStepTracker } from './agent';
import { rollout } from './rollout';
import { createVectorEnv } from './vector-env';

const policy = createScriptedPolicy(() => '<thought>a</thought><action>look</action>');

describe('agent options', () => {
  it('fills defaults', () => {
    const agent = createAdaPlanAgent(policy);
    expect(agent.paradigm).toBe('adaplan');
    expect(agent.options.revision).toEqual({ mode: 'every_turn' });
    expect(agent.options.planSource).toEqual({ kind: 'policy' });
    expect(agent.options.formatError).toEqual({ mode: 'penalty', penalty: -0.1 });
    expect(createReActAgent(policy).paradigm).toBe('react');
  });

  it('names every wrong option', () => {
    const attempt = () =>
      createAdaPlanAgent(policy, {
        revision: { mode: 'every_k' } as never,
        formatError: { mode: 'penalty', penalty: 1 },
        maxTurns: 0,
      });
    expect(attempt).toThrow(InvalidArgumentError);
    expect(attempt).toThrow(/revision\.k/);
    expect(attempt).toThrow(/formatError\.penalty/);
    expect(attempt).toThrow(/maxTurns/);
  });

  it('refuses a vector env smaller than a group', async () => {
    const tasks = await corridorTasks.tasks('train', { limit: 1 });
    await expect(
      rollout(createReActAgent(policy), createVectorEnv(createCorridorEnv, { size: 2 }), {
        envId: CORRIDOR_ENV_ID,
        tasks,
        groupSize: 3,
      }),
    ).rejects.toSatisfy(
      (error) => ConfigError.isInstance(error) && /at least 3 envs/.test((error as Error).message),
    );
  });
});

describe('plan revision schedule', () => {
  const idle = { turns: [], plan: { current: null, stepsDone: 0, stepsDoneByTurn: [], askedAt: 0 } };

  it('revises every turn, every k turns or never', () => {
    const turns = [0, 1, 2, 3, 4, 5, 6];
    expect(turns.filter((turn) => revisionDue({ mode: 'every_turn' }, turn, idle))).toEqual([
      1, 2, 3, 4, 5, 6,
    ]);
    expect(turns.filter((turn) => revisionDue({ mode: 'every_k', k: 3 }, turn, idle))).toEqual([3, 6]);
    expect(turns.filter((turn) => revisionDue({ mode: 'never' }, turn, idle))).toEqual([]);
  });

  it('revises on a stall: a refused action, a plan carried out, or k turns without a step done', () => {
    const onStall = { mode: 'on_stall', turns: 2 } as const;
    /**
     * Before the action of turn `after.length`, where `after[t]` steps were done after turn t's
     * action, a plan last asked for before turn `asked`.
     */
    const before = (after: number[], options: { asked?: number; refused?: boolean; steps?: number } = {}) =>
      revisionDue(onStall, after.length, {
        turns: after.map((_, t) => ({ valid: !(options.refused === true && t === after.length - 1) })),
        plan: {
          current: Array.from({ length: options.steps ?? 3 }, (_, i) => `step ${i + 1}`),
          stepsDone: after.at(-1) ?? 0,
          stepsDoneByTurn: [0, ...after.slice(0, -1)],
          askedAt: options.asked ?? 0,
        },
      });
    // Progress every turn: no revision.
    expect(before([1])).toBe(false);
    expect(before([1, 2])).toBe(false);
    // Two turns without a step done, from the start or later on.
    expect(before([0])).toBe(false);
    expect(before([0, 0])).toBe(true);
    expect(before([1, 1])).toBe(false);
    expect(before([1, 1, 1])).toBe(true);
    // ... but not within two turns of the last ask.
    expect(before([1, 1, 1], { asked: 2 })).toBe(false);
    expect(before([1, 1, 1, 1, 1], { asked: 2 })).toBe(true);
    // A refused action, or every step carried out with the episode still going.
    expect(before([1], { refused: true })).toBe(true);
    expect(before([1, 2, 3])).toBe(true);
    expect(before([1, 2], { steps: 2 })).toBe(true);
    expect(before([1, 2, 2, 2], { steps: 2, asked: 3 })).toBe(false);
  });

  it('counts the steps before the highest step a thought names as carried out', () => {
    const plan = ['a', 'b', 'c'];
    expect(thoughtStepTracker({ plan, thoughts: [] })).toBe(0);
    expect(thoughtStepTracker({ plan, thoughts: ['Step 1: go', null, 'now step 3, then done'] })).toBe(2);
    // Going back to an earlier step does not undo progress; a step past the plan caps at its length.
    expect(thoughtStepTracker({ plan, thoughts: ['Step 3', 'Step 2'] })).toBe(2);
    expect(thoughtStepTracker({ plan, thoughts: ['Step 9'] })).toBe(3);
    expect(thoughtStepTracker({ plan, thoughts: ['steps 2 and 3', 'footstep 3'] })).toBe(0);
  });
});
