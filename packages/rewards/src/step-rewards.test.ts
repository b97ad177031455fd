import {
  EnvError,
  type Episode,
  episodeSchema,
  type StepResult,
  type TextEnv,
  turnRewards,
} from '@pilotrl/core';
import { episodeRecord, planRevision, turnRecord } from '@pilotrl/env-testkit/test';
import { describe, expect, it } from 'vitest';
import { composeRewards } from './compose-rewards';
import { createLoopPenalty, loopingTurns } from './loop-penalty';
import { createOutcomeReward } from './outcome';
import { createRepeatedActionPenalty } from './repeated-action';
import { recordStepChecks } from './step-check-replay';
import { createStepPassReward } from './step-pass';

/**
 * A counter from 0 whose plan steps are "reach N": the check of "reach N" passes once the counter
 * becomes N (not when it already was N as the step began); "above N" passes while it is above N,
 * however it got there. "inc" and "dec" move it.
 */
function createCounterEnv() {
  let count = 0;
  const result = (valid = true): StepResult => ({
    observation: `The counter shows ${count}.`,
    admissibleActions: ['inc', 'dec'],
    reward: 0,
    terminated: false,
    truncated: false,
    info: { won: false, valid },
  });
  const env: TextEnv & {
    cannotCheckStep(step: string): string | undefined;
    checkStep(step: string): { passed(): boolean };
  } = {
    envId: 'counter',
    async reset() {
      count = 0;
      return result();
    },
    async step(action) {
      if (action === 'inc') count += 1;
      else if (action === 'dec') count -= 1;
      else return result(false);
      return result();
    },
    cannotCheckStep: (step) =>
      /^(reach|above) -?\d+$/.test(step) ? undefined : `"${step}" is not "reach N"`,
    checkStep(step) {
      if (step.startsWith('above ')) return { passed: () => count > Number(step.slice('above '.length)) };
      const target = Number(step.slice('reach '.length));
      const atStart = count === target;
      return { passed: () => !atStart && count === target };
    },
  };
  return env;
}

/** An episode of the counter env: its commands, with the observations the env answers. */
function counterEpisode(actions: string[], plan: string[], fields: Partial<Episode> = {}): Episode {
  let count = 0;
  const turns = actions.map((action, index) => {
    const turn = turnRecord(index, action, {
      observation: `The counter shows ${count}.`,
      admissibleActions: ['inc', 'dec'],
    });
    count += action === 'inc' ? 1 : -1;
    return turn;
  });
  return episodeRecord([], {
    envId: 'counter',
    initialObservation: 'The counter shows 0.',
    turns,
    planHistory: [planRevision(plan)],
    ...fields,
  });
}

describe('recordStepChecks', () => {
  it('passes the plan steps in order, each at the turn that carried it out', async () => {
    const episode = counterEpisode(['inc', 'inc', 'dec', 'inc', 'inc'], ['reach 2', 'reach 1', 'reach 3']);
    const record = await recordStepChecks(createCounterEnv(), episode);
    expect(record).toEqual({
      passed: [
        { step: 'reach 2', position: 0, turn: 1 },
        { step: 'reach 1', position: 1, turn: 2 },
        { step: 'reach 3', position: 2, turn: 4 },
      ],
      planSteps: 3,
    });
  });

  it('does not pass a later step early: "reach 1" after "reach 2" waits for the way back', async () => {
    // The counter shows 1 at turn 0, before "reach 2" passed; that does not count for "reach 1".
    const record = await recordStepChecks(
      createCounterEnv(),
      counterEpisode(['inc', 'inc', 'inc'], ['reach 2', 'reach 1']),
    );
    expect(record.passed).toEqual([{ step: 'reach 2', position: 0, turn: 1 }]);
  });

  it('passes at most one step per turn, even when the next step holds already', async () => {
    const record = await recordStepChecks(
      createCounterEnv(),
      counterEpisode(['inc', 'dec', 'inc'], ['above 0', 'above 0', 'above 0']),
    );
    expect(record.passed.map((pass) => pass.turn)).toEqual([0, 2]);
  });

  it('resumes a revised plan after the steps already passed', async () => {
    const episode = counterEpisode(['inc', 'inc', 'inc'], ['reach 1', 'reach 5'], {
      planHistory: [planRevision(['reach 1', 'reach 5']), planRevision(['reach 1', 'reach 3'], 'policy', 1)],
    });
    const record = await recordStepChecks(createCounterEnv(), episode);
    expect(record.passed.map(({ step, turn }) => [step, turn])).toEqual([
      ['reach 1', 0],
      ['reach 3', 2],
    ]);
  });

  it('refuses envs without checks, steps the env cannot check, and replays that diverge', async () => {
    const { cannotCheckStep: _c, checkStep: _s, ...plain } = createCounterEnv();
    const episode = counterEpisode(['inc'], ['reach 1']);
    await expect(recordStepChecks(plain, episode)).rejects.toThrow(/env "counter" cannot check plan steps/);
    await expect(
      recordStepChecks(createCounterEnv(), counterEpisode(['inc'], ['count to ten'])),
    ).rejects.toThrow(/cannot check step 1 .*"count to ten" is not "reach N"/);
    const edited = counterEpisode(['inc', 'inc'], ['reach 1']);
    edited.turns[1]!.observation = 'The counter shows 7.';
    await expect(recordStepChecks(createCounterEnv(), edited)).rejects.toThrow(EnvError);
  });
});

describe('per-turn rewards', () => {
  const episode = counterEpisode(['inc', 'dec', 'inc', 'dec', 'inc', 'inc'], ['reach 1', 'reach 2'], {
    won: true,
  });

  it('loop_penalty costs a command played again from the same state', () => {
    // Turns 2 and 4 play "inc" at "shows 0" again, turn 3 "dec" at "shows 1" again.
    expect(loopingTurns(episode)).toEqual([false, false, true, true, true, false]);
  });

  it('credit step passes and loops to their turns and the outcome to the last, summing to the reward', async () => {
    const scored = { ...episode, stepChecks: await recordStepChecks(createCounterEnv(), episode) };
    expect(scored.stepChecks.passed.map((pass) => pass.turn)).toEqual([0, 5]);
    const rewarded = await composeRewards([
      { fn: createOutcomeReward(), weight: 1 },
      { fn: createStepPassReward(), weight: 1 },
      { fn: createLoopPenalty(), weight: 1 },
    ]).apply(scored);
    expect(rewarded.rewardComponents).toMatchObject({ outcome: 1, step_pass: 0.4 });
    expect(rewarded.rewardComponents.loop_penalty).toBeCloseTo(-0.3);
    const shares = turnRewards(rewarded)!;
    expect(shares.map((share) => Number(share.toFixed(6)))).toEqual([0.2, 0, -0.1, -0.1, -0.1, 1.2]);
    expect(shares.reduce((a, b) => a + b, 0)).toBeCloseTo(rewarded.reward!);
    expect(rewarded.turns[5]!.rewards).toEqual({ step_pass: 0.2, loop_penalty: 0 });
    expect(episodeSchema.safeParse(rewarded).success).toBe(true);
  });

  it('are weighed like any component, and absent when no function credits turns', async () => {
    const scored = { ...episode, stepChecks: await recordStepChecks(createCounterEnv(), episode) };
    const halved = await composeRewards([
      { fn: createOutcomeReward(), weight: 1 },
      { fn: createStepPassReward({ amount: 1 }), weight: 0.5 },
    ]).apply(scored);
    expect(turnRewards(halved)).toEqual([0.5, 0, 0, 0, 0, 1.5]);
    const episodic = await composeRewards([
      { fn: createOutcomeReward(), weight: 1 },
      { fn: createRepeatedActionPenalty(), weight: 1 },
    ]).apply(scored);
    expect(episodic.turns.some((turn) => turn.reward !== undefined)).toBe(false);
    expect(turnRewards(episodic)).toBeUndefined();
    // Scoring again without turn credit drops the shares of the earlier scoring.
    const rescored = await composeRewards([{ fn: createOutcomeReward(), weight: 2 }]).apply(halved);
    expect(rescored.reward).toBe(2);
    expect(turnRewards(rescored)).toBeUndefined();
  });

  it('step_pass without a step-check record is an error that says how to make one', async () => {
    await expect(composeRewards([{ fn: createStepPassReward(), weight: 1 }]).apply(episode)).rejects.toThrow(
      /no step-check record; .*rollout option recordStepChecks: true.*recordStepChecks\(env, episode\)/,
    );
  });

  it('refuses a turn-crediting reward whose turns do not add up to its component', async () => {
    const inconsistent = {
      name: 'bonus',
      creditsTurns: true,
      compute: () => ({ bonus: 1 }),
      computeTurns: (e: Episode) => e.turns.map(() => ({ bonus: 0 })),
    };
    await expect(composeRewards([{ fn: inconsistent, weight: 1 }]).apply(episode)).rejects.toThrow(
      /per-turn values sum to 0 and the episode's is 1/,
    );
  });
});
