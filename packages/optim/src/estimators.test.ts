import { ConfigError, InvalidArgumentError } from '@pilotrl/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { episode } from '../test/episodes';
import { gae } from './gae';
import { grpo } from './grpo';
import { advantageEstimators } from './registries';
import { reinforcePlusPlus } from './reinforce-plus-plus';
import { rloo } from './rloo';
import { turnLevel, turnStateKey } from './turn-level';

// One generation per episode: prompt, two model tokens, an env token, a model token.
const mask: (0 | 1)[] = [0, 1, 1, 0, 1];
const single = (id: string, group: string, reward: number) => episode(id, group, reward, [{ masks: [mask] }]);

describe('grpo', () => {
  it('puts (r - group mean) / group std on model tokens and 0 on env tokens', () => {
    const episodes = [single('a', 'g', 1), single('b', 'g', 0), single('c', 'g', 0), single('d', 'g', 1)];
    const { advantages } = grpo().estimate({ episodes });
    // mean 0.5, sample std sqrt(1/3): ±0.5 / 0.57735 = ±0.866025
    expect(advantages[0]![0]![1]).toBeCloseTo(0.866025, 5);
    expect(advantages[1]![0]![1]).toBeCloseTo(-0.866025, 5);
    expect(advantages[0]![0]!.map((a) => a !== 0)).toEqual([false, true, true, false, true]);
  });

  it('without std normalisation gives r - mean, group by group', () => {
    const episodes = [single('a', 'g1', 1), single('b', 'g2', 5), single('c', 'g1', 0), single('d', 'g2', 2)];
    const { advantages } = grpo({ normalizeStd: false }).estimate({ episodes });
    expect(advantages.map((e) => e[0]![4])).toEqual([0.5, 1.5, -0.5, -1.5]);
  });

  it('gives 0 to a group whose rewards are all equal', () => {
    const { advantages } = grpo().estimate({ episodes: [single('a', 'g', 1), single('b', 'g', 1)] });
    expect(advantages.flat(2).every((a) => a === 0)).toBe(true);
  });

  it('refuses an episode without a reward', () => {
    expect(() => grpo().estimate({ episodes: [episode('a', 'g', undefined, [{ masks: [mask] }])] })).toThrow(
      /Episode "a" has no finite reward/,
    );
  });

  it('rejects unknown arguments', () => {
    expect(() => grpo({ normaliseStd: true } as never)).toThrow(InvalidArgumentError);
  });
});

describe('rloo', () => {
  it('subtracts the mean of the other episodes of the group', () => {
    const episodes = [single('a', 'g', 1), single('b', 'g', 0), single('c', 'g', 0)];
    const { advantages } = rloo().estimate({ episodes });
    expect(advantages.map((e) => e[0]![1])).toEqual([1, -0.5, -0.5]);
    expect(advantages[0]![0]![3]).toBe(0);
  });

  it('refuses a group of one', () => {
    expect(() => rloo().estimate({ episodes: [single('a', 'g', 1)] })).toThrow(ConfigError);
  });
});

describe('reinforce++', () => {
  // g1: rewards 1 and 0; g2: rewards 3 and 1; one model token each.
  const oneToken: (0 | 1)[] = [0, 1, 0];
  const episodes = [
    episode('a', 'g1', 1, [{ masks: [oneToken] }]),
    episode('b', 'g1', 0, [{ masks: [oneToken] }]),
    episode('c', 'g2', 3, [{ masks: [oneToken] }]),
    episode('d', 'g2', 1, [{ masks: [oneToken] }]),
  ];

  it('whitens rewards over the batch', () => {
    const { advantages } = reinforcePlusPlus().estimate({ episodes });
    // mean 1.25, population std sqrt(1.1875) = 1.089725
    const expected = [-0.229416, -1.147079, 1.60591, -0.229416];
    advantages.forEach((a, i) => {
      expect(a[0]![1]).toBeCloseTo(expected[i]!, 5);
    });
    expect(advantages[0]![0]![2]).toBe(0);
  });

  it('with the group baseline subtracts group means first', () => {
    const { advantages } = reinforcePlusPlus({ groupBaseline: true }).estimate({ episodes });
    // centred [0.5, -0.5, 1, -1], std sqrt(0.625)
    const expected = [0.632456, -0.632456, 1.264911, -1.264911];
    advantages.forEach((a, i) => {
      expect(a[0]![1]).toBeCloseTo(expected[i]!, 5);
    });
  });

  it('weights the batch statistics by model tokens, not by env tokens', () => {
    const twoTokens = episode('a', 'g', 1, [{ masks: [[0, 1, 1, 0, 0, 0]] }]);
    const oneTokenManyEnv = episode('b', 'g', 0, [{ masks: [[0, 0, 0, 0, 0, 1]] }]);
    const { advantages } = reinforcePlusPlus().estimate({ episodes: [twoTokens, oneTokenManyEnv] });
    // token mean 2/3, population std sqrt(2/9): 1 → 0.707107, 0 → -1.414214
    expect(advantages[0]![0]![1]).toBeCloseTo(Math.SQRT1_2, 5);
    expect(advantages[1]![0]![5]).toBeCloseTo(-Math.SQRT2, 5);
  });
});

describe('gae', () => {
  // Model tokens in order: (gen 0, t1), (gen 0, t2), (gen 1, t2); 9s sit on env/prompt tokens.
  const multiTurn = episode('a', 'g', 1, [{ masks: [[0, 1, 1]] }, { masks: [[0, 0, 1]] }]);
  const values = [
    [
      [9, 0.5, 0.2],
      [9, 9, 0.8],
    ],
  ];

  it('runs the recursion over model tokens only, across generations', () => {
    const { advantages, returns } = gae({ gamma: 0.9, lambda: 0.8, whiten: false }).estimate({
      episodes: [multiTurn],
      values,
    });
    // δ2 = 1 - 0.8 = 0.2; δ1 = 0.9·0.8 - 0.2 = 0.52; δ0 = 0.9·0.2 - 0.5 = -0.32; γλ = 0.72
    expect(advantages[0]![1]![2]).toBeCloseTo(0.2, 10);
    expect(advantages[0]![0]![2]).toBeCloseTo(0.664, 10);
    expect(advantages[0]![0]![1]).toBeCloseTo(0.15808, 10);
    expect(returns![0]![0]![1]).toBeCloseTo(0.65808, 10);
    expect(returns![0]![1]![2]).toBeCloseTo(1, 10);
    expect([advantages[0]![0]![0], advantages[0]![1]![0], advantages[0]![1]![1]]).toEqual([0, 0, 0]);
  });

  it('with γ = λ = 1 gives reward minus value', () => {
    const { advantages } = gae({ whiten: false }).estimate({ episodes: [multiTurn], values });
    expect(advantages[0]![0]![1]).toBeCloseTo(0.5, 10);
    expect(advantages[0]![0]![2]).toBeCloseTo(0.8, 10);
    expect(advantages[0]![1]![2]).toBeCloseTo(0.2, 10);
  });

  it('needs values', () => {
    expect(() => gae().estimate({ episodes: [multiTurn] })).toThrow(/value head/);
  });
});

describe('turn-level', () => {
  const kitchen = 'You are in the kitchen.';
  // Episode a (reward 1) visits S0, S1, S2; episode b (reward 0) visits S0 (written differently), S3.
  const episodes = [
    episode('a', 'g', 1, [
      { observation: kitchen, admissibleActions: ['go east', 'look'], masks: [mask] },
      { observation: 'hall', masks: [mask] },
      { observation: 'garden', masks: [mask] },
    ]),
    episode('b', 'g', 0, [
      { observation: '  you are in the   Kitchen.\n', admissibleActions: ['look', 'Go East'], masks: [mask] },
      { observation: 'cellar', masks: [mask] },
    ]),
  ];

  it('adds step advantages of turns that start from the same state to the episode advantage', () => {
    const { advantages } = turnLevel({ gamma: 0.5, normalizeStd: false }).estimate({ episodes });
    // Episode level: ±0.5. Step group S0: returns 0.5² · 1 = 0.25 and 0 → ±0.125. Others: alone → 0.
    expect(advantages[0]!.map((g) => g[1])).toEqual([0.625, 0.5, 0.5]);
    expect(advantages[1]!.map((g) => g[1])).toEqual([-0.625, -0.5]);
    expect(advantages[0]![0]![3]).toBe(0);
  });

  it('weights the step level', () => {
    const { advantages } = turnLevel({ gamma: 0.5, normalizeStd: false, stepWeight: 2 }).estimate({
      episodes,
    });
    expect(advantages[0]![0]![1]).toBeCloseTo(0.75, 10);
  });

  it('normalises state keys for case, spacing and action order', () => {
    expect(turnStateKey({ observation: 'A  b\n', admissibleActions: ['y', 'X'] })).toBe(
      turnStateKey({ observation: 'a b', admissibleActions: ['x', 'y'] }),
    );
    expect(turnStateKey({ observation: 'a b', admissibleActions: ['x'] })).not.toBe(
      turnStateKey({ observation: 'a b', admissibleActions: ['x', 'y'] }),
    );
  });
});

describe('the estimator registry', () => {
  it('holds the built-in estimators and takes new ones', () => {
    expect(advantageEstimators.ids()).toEqual(['gae', 'grpo', 'reinforce++', 'rloo', 'turn-level']);
    expect(advantageEstimators.get('gae').requires).toEqual(['valueHead']);
    expect(advantageEstimators.get('grpo').optionsSchema.parse({})).toEqual({
      normalizeStd: true,
      eps: 1e-6,
    });
    advantageEstimators.register('test-constant', {
      id: 'test-constant',
      optionsSchema: z.strictObject({}),
      requires: [],
      create: () => ({
        name: 'test-constant',
        needsValues: false,
        estimate: ({ episodes }) => ({ advantages: episodes.map(() => [[0, 1]]) }),
      }),
    });
    expect(advantageEstimators.get('test-constant').create({}).name).toBe('test-constant');
    expect(() => advantageEstimators.get('ppo2')).toThrow(/Known: gae, grpo/);
  });
});
