// Step checks recorded by the rollout as it plays (`recordStepChecks`): the plan in force checked
// after every turn against the env played on, in plan order, at most one step per turn, a revised
// plan resuming after the steps passed; and the errors for envs and plans that cannot be checked.
import {
  ConfigError,
  type Episode,
  InvalidArgumentError,
  type StepResult,
  type TextEnv,
  type VectorEnv,
} from '@pilotrl/core';
import { createScriptedPolicy } from '@pilotrl/env-testkit/test';
import { describe, expect, it } from 'vitest';
import { createAdaPlanAgent } from './agent';
import { planBlock } from './prompt-templates';
import { rollout } from './rollout';
import { createVectorEnv } from './vector-env';

/**
 * A counter from 0 whose plan steps are "reach N": the check of "reach N" passes once the counter
 * becomes N (not when it already was N as the step began); "above N" passes while it is above N,
 * however it got there. "inc" and "dec" move it.
 */
function createCounterEnv() {
  let count = 0;
  const result = (): StepResult => ({
    observation: `The counter shows ${count}.`,
    admissibleActions: ['inc', 'dec'],
    reward: 0,
    terminated: false,
    truncated: false,
    info: { won: false, valid: true, task: 'Count.' },
  });
  return {
    envId: 'counter',
    async reset() {
      count = 0;
      return result();
    },
    async step(action: string) {
      count += action === 'inc' ? 1 : -1;
      return result();
    },
    cannotCheckStep: (step: string) =>
      /^(reach|above) -?\d+$/.test(step) ? undefined : `"${step}" is not "reach N"`,
    checkStep(step: string) {
      if (step.startsWith('above ')) return { passed: () => count > Number(step.slice('above '.length)) };
      const target = Number(step.slice('reach '.length));
      const atStart = count === target;
      return { passed: () => !atStart && count === target };
    },
  } satisfies TextEnv & Record<string, unknown>;
}

/**
 * Plays one counter episode: `actions` in order, the plan of `plans[turn]` written at that turn
 * (revised every turn; a turn with no entry writes the plan in force again, which changes nothing).
 */
async function play(
  actions: string[],
  plans: Record<number, string[]>,
  options: { recordStepChecks?: boolean; env?: () => TextEnv } = {},
): Promise<Episode> {
  let turn = 0;
  let plan: string[] = [];
  const policy = createScriptedPolicy((request) => {
    if (request.kind === 'plan') {
      plan = plans[turn] ?? plan;
      return planBlock(plan);
    }
    return `<thought>Counting.</thought><action>${actions[turn++]}</action>`;
  });
  const agent = createAdaPlanAgent(policy, { maxTurns: actions.length, contextTokens: 100_000 });
  const vectorEnv = createVectorEnv(options.env ?? createCounterEnv, { size: 1 });
  const [episode] = await rollout(agent, vectorEnv, {
    envId: 'counter',
    tasks: [{ taskId: 'c', split: 'train', seed: 0 }],
    recordStepChecks: options.recordStepChecks ?? true,
  });
  await vectorEnv.close();
  return episode!;
}

describe('step checks recorded by the rollout', () => {
  it('passes the plan steps in order, each at the turn that carried it out', async () => {
    const episode = await play(['inc', 'inc', 'dec', 'inc', 'inc'], { 0: ['reach 2', 'reach 1', 'reach 3'] });
    expect(episode.stepChecks).toEqual({
      passed: [
        { step: 'reach 2', position: 0, turn: 1 },
        { step: 'reach 1', position: 1, turn: 2 },
        { step: 'reach 3', position: 2, turn: 4 },
      ],
      planSteps: 3,
    });
  });

  it('does not pass a later step early: "reach 1" after "reach 2" waits for the way back', async () => {
    const episode = await play(['inc', 'inc', 'inc'], { 0: ['reach 2', 'reach 1'] });
    expect(episode.stepChecks!.passed).toEqual([{ step: 'reach 2', position: 0, turn: 1 }]);
  });

  it('passes at most one step per turn, even when the next step holds already', async () => {
    const episode = await play(['inc', 'dec', 'inc'], { 0: ['above 0', 'above 0', 'above 0'] });
    expect(episode.stepChecks!.passed.map((pass) => pass.turn)).toEqual([0, 2]);
  });

  it('resumes a revised plan after the steps already passed, checking from the turn it came into force', async () => {
    // "reach 3" comes into force at turn 1 (the counter shows 1), and passes as turn 2 makes it 3.
    const episode = await play(['inc', 'inc', 'inc', 'inc'], {
      0: ['reach 1', 'reach 5'],
      1: ['reach 1', 'reach 3', 'reach 4'],
    });
    expect(episode.planHistory.map((revision) => revision.turn)).toEqual([0, 1]);
    expect(episode.stepChecks).toEqual({
      passed: [
        { step: 'reach 1', position: 0, turn: 0 },
        { step: 'reach 3', position: 1, turn: 2 },
        { step: 'reach 4', position: 2, turn: 3 },
      ],
      planSteps: 3,
    });
  });

  it('records nothing unless asked', async () => {
    const episode = await play(['inc'], { 0: ['reach 1'] }, { recordStepChecks: false });
    expect(episode).not.toHaveProperty('stepChecks');
  });

  it('refuses envs without checks, steps the env cannot check, and vector envs that cannot reach checks', async () => {
    const plain = () => {
      const { cannotCheckStep: _c, checkStep: _s, ...env } = createCounterEnv();
      return env;
    };
    const withoutChecks = play(['inc'], { 0: ['reach 1'] }, { env: plain });
    await expect(withoutChecks).rejects.toThrow(InvalidArgumentError);
    await expect(withoutChecks).rejects.toThrow(
      /env "counter" cannot check plan steps against its state, which recording step checks needs/,
    );
    await expect(play(['inc'], { 0: ['count to ten'] })).rejects.toThrow(
      /cannot check step 1 of the plan of episode rollout\/0-c\/0: "count to ten" is not "reach N"/,
    );
    const { stepChecksAt: _checks, ...opaque } = createVectorEnv(createCounterEnv, { size: 1 });
    const agent = createAdaPlanAgent(createScriptedPolicy(() => planBlock(['reach 1'])));
    await expect(
      rollout(agent, opaque as VectorEnv, {
        envId: 'counter',
        tasks: [{ taskId: 'c', split: 'train', seed: 0 }],
        recordStepChecks: true,
      }),
    ).rejects.toThrow(ConfigError);
  });
});
