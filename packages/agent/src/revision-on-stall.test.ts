// Revising when the env contradicts the plan (`revision: on_stall`): a plan is rewritten only after
// turns in which none of its steps was carried out, not before every action.
import type { StepResult, TextEnv } from '@pilotrl/core';
import { createScriptedPolicy } from '@pilotrl/env-testkit/test';
import { describe, expect, it } from 'vitest';
import { createAdaPlanAgent, type RevisionOptions } from './agent';
import { planBlock } from './prompt-templates';
import { rollout } from './rollout';
import { createVectorEnv } from './vector-env';

function createEchoEnv(): TextEnv {
  const result = (): StepResult => ({
    observation: 'Nothing changes.',
    admissibleActions: ['wait'],
    reward: 0,
    terminated: false,
    truncated: false,
    info: { won: false, valid: true, task: 'Wait.' },
  });
  return { envId: 'echo', reset: async () => result(), step: async () => result() };
}

/** The turns before which the plan was asked for, when each turn's thought names `thoughts[turn]`. */
async function planTurns(revision: RevisionOptions, thoughts: string[]): Promise<number[]> {
  let turn = 0;
  const asked: number[] = [];
  const policy = createScriptedPolicy((request) => {
    if (request.kind === 'plan') {
      asked.push(turn);
      return planBlock(['find the key', 'open the door', 'leave']);
    }
    return `<thought>${thoughts[turn++]}</thought><action>wait</action>`;
  });
  const agent = createAdaPlanAgent(policy, { maxTurns: thoughts.length, contextTokens: 100_000, revision });
  const vectorEnv = createVectorEnv(createEchoEnv, { size: 1 });
  await rollout(agent, vectorEnv, { envId: 'echo', tasks: [{ taskId: 't', split: 'train', seed: 0 }] });
  await vectorEnv.close();
  return asked;
}

describe('plan revision on a stall', () => {
  // The thought step tracker counts the steps before the one a thought names as done.
  const thoughts = ['Now step 2.', 'Hm.', 'Hm.', 'Hm.', 'Now step 3.', 'Hm.', 'Hm.', 'Hm.'];

  it('asks again only after two turns without a step done, counted from the last revision', async () => {
    expect(await planTurns({ mode: 'on_stall', turns: 2 }, thoughts)).toEqual([0, 3, 7]);
  });

  it('asks before every action with every_turn, and once with never', async () => {
    expect(await planTurns({ mode: 'every_turn' }, thoughts)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(await planTurns({ mode: 'never' }, thoughts)).toEqual([0]);
  });
});
