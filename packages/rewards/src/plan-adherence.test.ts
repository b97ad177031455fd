import { episodeRecord, planRevision, turnRecord } from '@pilotrl/env-testkit/test';
import { describe, expect, it } from 'vitest';
import { createPlanAdherenceReward } from './plan-adherence';
import { alignActionsToPlan } from './plan-matching';

const recipePlan = [
  'Take the tomato and the onion from the pantry.',
  'Put both in the bowl.',
  'Mix the bowl.',
];

describe('plan adherence', () => {
  it('is 1 when the actions carry out every step', () => {
    const played = episodeRecord(
      ['take tomato', 'take onion', 'put tomato in bowl', 'put onion in bowl', 'mix bowl'],
      {
        planHistory: [planRevision(recipePlan)],
      },
    );
    expect(createPlanAdherenceReward().compute(played)).toEqual({ plan_adherence: 1 });
  });

  it('gives partial credit per step clause, in order', async () => {
    const played = episodeRecord(['take tomato', 'put tomato in bowl'], {
      planHistory: [planRevision(recipePlan)],
    });
    // Step 1: tomato yes, onion no (1/2); step 2 done; step 3 not done.
    expect((await createPlanAdherenceReward().compute(played)).plan_adherence).toBeCloseTo((0.5 + 1 + 0) / 3);
  });

  it('gives nothing for the wrong objects or refused actions', () => {
    const wrong = episodeRecord(['take carrot', 'look'], { planHistory: [planRevision(recipePlan)] });
    expect(createPlanAdherenceReward().compute(wrong)).toEqual({ plan_adherence: 0 });
    const refused = episodeRecord([], { planHistory: [planRevision(recipePlan)] });
    refused.turns = [
      turnRecord(0, 'take tomato', { valid: false }),
      turnRecord(1, 'mix bowl', { valid: false }),
    ];
    expect(createPlanAdherenceReward().compute(refused)).toEqual({ plan_adherence: 0 });
  });

  it('follows the first plan by default and the last on request', () => {
    const played = episodeRecord(['go east', 'stop'], {
      planHistory: [
        planRevision(['Walk west 2 rooms to the goal room.', 'Stop there.']),
        planRevision(['Walk east to the goal room.', 'Stop there.'], 'policy', 1),
      ],
    });
    expect(createPlanAdherenceReward().compute(played)).toEqual({ plan_adherence: 0.5 });
    expect(createPlanAdherenceReward({ plan: 'last' }).compute(played)).toEqual({ plan_adherence: 1 });
  });

  it('fails loudly without a plan', () => {
    expect(() => createPlanAdherenceReward().compute(episodeRecord(['look']))).toThrow(
      /has no plan in planHistory/,
    );
  });
});

describe('matching actions to plan steps', () => {
  it('matches ALFWorld commands to natural steps, telling instances apart', () => {
    const alignment = alignActionsToPlan(
      ['Go to countertop 1 and take the apple', 'Heat it with the microwave', 'Put the apple in the fridge'],
      [
        'go to countertop 2',
        'go to countertop 1',
        'take apple 1 from countertop 1',
        'go to microwave 1',
        'heat apple 1 with microwave 1',
        'go to fridge 1',
        'open fridge 1',
        'put apple 1 in/on fridge 1',
      ],
    );
    // Walking to the microwave or the fridge is not heating or putting; opening the fridge is off-plan.
    expect(alignment.clauseOf).toEqual([-1, 0, 1, -1, 2, -1, -1, 3]);
    expect(alignment.stepCoverage).toEqual([1, 1, 1]);
  });

  it('understands find, pronouns and synonyms', () => {
    const alignment = alignActionsToPlan(
      ['Find the red key and grab it', 'Unlock the door with it', 'Open the door and walk through it'],
      ['open drawer', 'take red key from drawer', 'unlock door with red key', 'open door', 'go through door'],
    );
    expect(alignment.stepCoverage).toEqual([1, 1, 1]);
  });

  it('resolves a pronoun to the object of the step before', () => {
    const alignment = alignActionsToPlan(
      ['Take the apple from countertop 1', 'Heat it with microwave 1'],
      ['take apple 1 from countertop 1', 'heat apple 1 with microwave 1'],
    );
    expect(alignment.stepCoverage).toEqual([1, 1]);
  });

  it('does not let a different key stand in for the planned one', () => {
    const alignment = alignActionsToPlan(['Take the red key from the drawer'], ['take blue key from drawer']);
    expect(alignment.stepCoverage).toEqual([0]);
  });
});
