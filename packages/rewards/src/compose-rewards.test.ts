import { episodeSchema, type JudgeResult, type RewardFn } from '@pilotrl/core';
import { episodeRecord, planRevision } from '@pilotrl/env-testkit/test';
import { describe, expect, it } from 'vitest';
import { composeRewards } from './compose-rewards';
import { createFormatReward } from './format';
import { createInvalidActionPenalty } from './invalid-action';
import { createOutcomeReward } from './outcome';
import { createPlanAdherenceReward } from './plan-adherence';
import { createRepeatedActionPenalty } from './repeated-action';
import type { EpisodeRewardFn } from './reward-fn';

const played = episodeRecord(['take tomato', null, 'take tomato', 'take onion'], {
  won: true,
  planHistory: [planRevision(['Take the tomato and the onion.', 'Mix the bowl.'])],
});

describe('composeRewards', () => {
  it('records every component and sums the weighted ones', async () => {
    const composed = composeRewards([
      { fn: createOutcomeReward(), weight: 1 },
      { fn: createFormatReward(), weight: 0.5 },
      { fn: createRepeatedActionPenalty(), weight: 0.1 },
      { fn: createPlanAdherenceReward(), weight: 0.2 },
    ]);
    const rewarded = await composed.apply(played);
    expect(rewarded.rewardComponents).toEqual({
      outcome: 1,
      format: -0.25,
      repeated_action: -0.25,
      plan_adherence: 0.5,
    });
    expect(rewarded.reward).toBeCloseTo(1 - 0.125 - 0.025 + 0.1);
    expect(episodeSchema.safeParse(rewarded).success).toBe(true);
    expect(played.reward).toBeUndefined();
  });

  it('masks components with weight 0: recorded, not summed', async () => {
    const composed = composeRewards([
      { fn: createOutcomeReward(), weight: 1 },
      { fn: createFormatReward(), weight: 0 },
      { fn: createInvalidActionPenalty(), weight: 0 },
    ]);
    const rewarded = await composed.apply(played);
    expect(rewarded.reward).toBe(1);
    expect(rewarded.rewardComponents.format).toBe(-0.25);
    expect(rewarded.rewardComponents.invalid_action).toBe(0);
  });

  it('writes per-turn components into the turns', async () => {
    const rewarded = await composeRewards([
      { fn: createFormatReward(), weight: 1 },
      { fn: createRepeatedActionPenalty(), weight: 1 },
    ]).apply(played);
    expect(rewarded.turns.map((turn) => turn.rewards)).toEqual([
      { format: 0, repeated_action: 0 },
      { format: -1, repeated_action: 0 },
      { format: 0, repeated_action: -1 },
      { format: 0, repeated_action: 0 },
    ]);
  });

  it('weighs named components of a function that returns several, and stores its judge verdict', async () => {
    const verdict: JudgeResult = {
      correctness: { score: 4, reason: 'r' },
      followability: { score: 3, reason: 'r' },
      standardization: { score: 5, reason: 'r' },
      flags: [],
      judge: 'fixed',
    };
    const judged: EpisodeRewardFn = {
      name: 'plan_quality',
      compute: () => ({ judge_correctness: 4, plan_quality: 0.75 }),
      judgeResult: () => verdict,
    };
    const rewarded = await composeRewards([
      { fn: judged, weight: { plan_quality: 2, judge_correctness: 0.5 } },
    ]).apply(played);
    expect(rewarded.reward).toBe(3.5);
    expect(rewarded.judge).toEqual(verdict);
  });

  it('fails loudly on missing, duplicated or non-finite components', async () => {
    const nameless: RewardFn = { name: 'custom', compute: () => ({ other: 1 }) };
    await expect(composeRewards([{ fn: nameless, weight: 1 }]).apply(played)).rejects.toThrow(
      /Weighted component "custom" was not returned/,
    );
    await expect(
      composeRewards([
        { fn: createOutcomeReward(), weight: 1 },
        { fn: { name: 'again', compute: () => ({ outcome: 2 }) }, weight: 0 },
      ]).apply(played),
    ).rejects.toThrow(/both write component "outcome"/);
    await expect(
      composeRewards([{ fn: { name: 'bad', compute: () => ({ bad: Number.NaN }) }, weight: 1 }]).apply(
        played,
      ),
    ).rejects.toThrow(/components of reward bad for episode episode-1:\n {2}bad: .*NaN/);
    expect(() => composeRewards([{ fn: createOutcomeReward(), weight: Number.POSITIVE_INFINITY }])).toThrow(
      /weight of reward 0 \(outcome\):\n {2}\(root\): must be a finite number/,
    );
  });
});
