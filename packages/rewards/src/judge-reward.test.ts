import { episodeRecord, planRevision } from '@pilotrl/env-testkit/test';
import { describe, expect, it } from 'vitest';
import { composeRewards } from './compose-rewards';
import { detectInstructionInjection } from './injection';
import { createJudgeReward, perStepJudgeInputs } from './judge-reward';
import { createOutcomeReward } from './outcome';
import { createReferenceJudge } from './reference-judge';

const reference = {
  plan: ['Take the tomato and the onion from the pantry.', 'Put both in the bowl.', 'Mix the bowl.'],
  actions: ['take tomato', 'take onion', 'put tomato in bowl', 'put onion in bowl', 'mix bowl'],
};

describe('judge reward (stage 2)', () => {
  it('turns the verdict on the policy-written plan into components and keeps it on the episode', async () => {
    const played = episodeRecord(['take tomato'], {
      won: true,
      planHistory: [
        planRevision(['Take the tomato and the onion', 'Put them in the bowl', 'Mix the bowl'], 'policy'),
      ],
    });
    const composed = composeRewards([
      { fn: createOutcomeReward(), weight: 1 },
      { fn: createJudgeReward({ judge: createReferenceJudge(), reference: () => reference }), weight: 0.5 },
    ]);
    const rewarded = await composed.apply(played);
    expect(rewarded.rewardComponents).toEqual({
      outcome: 1,
      judge_correctness: 5,
      judge_followability: 5,
      judge_standardization: 5,
      plan_quality: 1,
    });
    expect(rewarded.reward).toBe(1.5);
    expect(rewarded.judge?.judge).toBe('reference');
  });

  it('judges the plan in force at every step and averages the verdicts over the steps (per-step)', async () => {
    // Four steps: the first plan is in force for one, its revision for the other three.
    const played = episodeRecord(['take tomato', 'take onion', 'put tomato in bowl', 'put onion in bowl'], {
      planHistory: [
        planRevision(['Mix the bowl'], 'policy', 0),
        planRevision(['Put them in the bowl', 'Mix the bowl'], 'policy', 1),
      ],
    });
    const scored = new Map<string, number>([
      ['Mix the bowl', 1],
      ['Put them in the bowl|Mix the bowl', 5],
    ]);
    const judge = {
      name: 'by-plan',
      judge: async (inputs: readonly { plan: readonly string[] }[]) =>
        inputs.map((input) => {
          const score = scored.get(input.plan.join('|'))!;
          const verdict = { score, reason: '' };
          return {
            judge: 'by-plan',
            correctness: verdict,
            followability: verdict,
            standardization: verdict,
            flags: [],
          };
        }),
    };
    const perStep = await createJudgeReward({ judge }, { plan: 'per-step' }).compute(played);
    expect(perStep.judge_correctness).toBe((1 + 5 * 3) / 4);
    expect(perStep.plan_quality).toBe(((1 + 5 * 3) / 4 - 1) / 4);
    const first = await createJudgeReward({ judge }, { plan: 'first' }).compute(played);
    expect(first.judge_correctness).toBe(1);
  });

  it("gives the per-step judge each turn with its action, the env's answer and the step checks", async () => {
    const played = episodeRecord(['take tomato', 'take onion', null], {
      planHistory: [planRevision(['take tomato', 'take onion'], 'policy', 0)],
      stepChecks: { passed: [{ step: 'take tomato', position: 0, turn: 0 }], planSteps: 2 },
      metadata: { finalObservation: 'Nothing happens.' },
    });
    const inputs = perStepJudgeInputs(played, reference);
    expect(inputs.map((input) => input.step)).toEqual([
      { index: 0, action: 'take tomato', feedback: 'observation 1', planStep: 0, planStepDone: true },
      { index: 1, action: 'take onion', feedback: 'observation 2', planStep: 1, planStepDone: false },
      { index: 2, action: null, feedback: 'Nothing happens.', planStep: 1, planStepDone: false },
    ]);
    expect(inputs[0]).toMatchObject({
      plan: ['take tomato', 'take onion'],
      observation: 'observation 0',
      reference,
    });
    // Without step checks the judge matches actions to the plan in words.
    const unchecked = perStepJudgeInputs({ ...played, stepChecks: undefined });
    expect(unchecked[1]!.step).toEqual({ index: 1, action: 'take onion', feedback: 'observation 2' });
    // A step that did nothing costs the plan's per-step score.
    const judged = await createJudgeReward(
      { judge: createReferenceJudge(), reference: () => reference },
      { plan: 'per-step' },
    ).compute(played);
    expect(judged.judge_followability).toBeLessThan(5);
  });

  it('needs a plan the policy wrote', async () => {
    const given = episodeRecord(['take tomato'], { planHistory: [planRevision(reference.plan, 'oracle')] });
    await expect(createJudgeReward({ judge: createReferenceJudge() }).compute(given)).rejects.toThrow(
      /no plan written by the policy/,
    );
  });

  it('scores an episode without a policy-written plan when given a missingPlan score', async () => {
    const given = episodeRecord(['take tomato'], {
      won: true,
      planHistory: [planRevision(reference.plan, 'oracle')],
    });
    const composed = composeRewards([
      { fn: createOutcomeReward(), weight: 1 },
      {
        fn: createJudgeReward({ judge: createReferenceJudge() }, { missingPlan: { score: 0 } }),
        weight: 0.5,
      },
    ]);
    const rewarded = await composed.apply(given);
    expect(rewarded.rewardComponents).toEqual({ outcome: 1, plan_quality: 0 });
    expect(rewarded.reward).toBe(1);
    expect(rewarded.judge).toBeUndefined();
    const lenient = createJudgeReward({ judge: createReferenceJudge() }, { missingPlan: { score: 0.25 } });
    expect(await lenient.compute(episodeRecord(['look'], { planHistory: [] }))).toEqual({
      plan_quality: 0.25,
    });
  });

  it('rejects a missingPlan that is neither "error" nor a finite score', () => {
    const judge = createReferenceJudge();
    expect(() => createJudgeReward({ judge }, { missingPlan: { score: Number.NaN } })).toThrow(/missingPlan/);
    expect(() => createJudgeReward({ judge }, { missingPlan: 'zero' as 'error' })).toThrow(/missingPlan/);
  });
});

describe('injection detector', () => {
  it('leaves ordinary plans alone', () => {
    const plans = [
      'Go to countertop 1 and take the apple',
      'Heat the apple with microwave 1, then put it in fridge 1',
      'Walk east 3 rooms to the goal room.',
      'Take the red key from the drawer and unlock the door with it.',
      'Examine the alarmclock with the desklamp',
      'Check drawer 5 for a cellphone',
    ];
    for (const text of plans) expect(detectInstructionInjection(text)).toEqual([]);
  });
});
