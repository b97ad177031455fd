// Estimators with rewards credited per turn (`turn.reward`): a turn that earns a reward (a plan step
// whose check passed) is credited apart from its neighbours, and without per-turn rewards the
// episode reward arrives at the final turn as before.
import { describe, expect, it } from 'vitest';
import { episode, type TurnSpec } from '../test/episodes';
import { gae } from './gae';
import { turnLevel } from './turn-level';

const mask: (0 | 1)[] = [0, 1, 1];
/** Three turns through the same three states; `shares` are the per-turn rewards, if any. */
const walk = (id: string, total: number, shares?: number[]) =>
  episode(
    id,
    'g',
    total,
    ['hall', 'kitchen', 'garden'].map(
      (observation, t): TurnSpec => ({
        observation,
        masks: [mask],
        ...(shares === undefined ? {} : { reward: shares[t]! }),
      }),
    ),
  );

describe('turn-level with per-turn rewards', () => {
  it('gives the turn that passed a step a higher advantage than its neighbours', () => {
    // Both episodes win; a's plan step passed at its kitchen turn (0.2 there, 1 at the end).
    const episodes = [walk('a', 1.2, [0, 0.2, 1]), walk('b', 1, [0, 0, 1])];
    const { advantages } = turnLevel({ gamma: 0.5, normalizeStd: false }).estimate({ episodes });
    const [hall, kitchen, garden] = advantages[0]!.map((generation) => generation[1]!);
    // Episode level: ±0.1. Kitchen: returns 0.2 + 0.5 vs 0.5 → ±0.1; hall: ±0.05; garden: equal.
    expect(kitchen).toBeCloseTo(0.2, 10);
    expect(hall).toBeCloseTo(0.15, 10);
    expect(garden).toBeCloseTo(0.1, 10);
    expect(kitchen).toBeGreaterThan(hall!);
    expect(advantages[1]![1]![1]).toBeCloseTo(-0.2, 10);
  });

  it('without per-turn rewards discounts the episode reward from the final turn, as before', () => {
    const credited = turnLevel({ gamma: 0.5 }).estimate({
      episodes: [walk('a', 1, [0, 0, 1]), walk('b', 0, [0, 0, 0])],
    });
    const whole = turnLevel({ gamma: 0.5 }).estimate({ episodes: [walk('a', 1), walk('b', 0)] });
    expect(credited.advantages).toEqual(whole.advantages);
  });

  it('refuses turn rewards that do not sum to the episode reward', () => {
    expect(() => turnLevel().estimate({ episodes: [walk('a', 1, [0, 0.2, 1]), walk('b', 1)] })).toThrow(
      /turn rewards summing to 1.2 but reward 1/,
    );
  });
});

describe('gae with per-turn rewards', () => {
  // Zero values: with γ = λ = 1 each token's advantage is the reward still to come.
  const values = [
    [
      [0, 0, 0],
      [0, 0, 0],
      [0, 0, 0],
    ],
  ];

  it('delivers each turn its reward at its last model token', () => {
    const { advantages, returns } = gae({ whiten: false }).estimate({
      episodes: [walk('a', 1.2, [0, 0.2, 1])],
      values,
    });
    expect(advantages[0]!.map((generation) => generation[2])).toEqual([1.2, 1.2, 1]);
    expect(returns![0]![1]![2]).toBeCloseTo(1.2, 10);
  });

  it('credits the step pass to the kitchen turn, undiscounted there, before the far-off outcome', () => {
    // γ = 0.5 per model token. Garden's tokens: 1, 0.5. Kitchen's last token: 0.2 + 0.5 · 0.5.
    const estimate = (shares: number[]) =>
      gae({ gamma: 0.5, lambda: 1, whiten: false }).estimate({
        episodes: [
          walk(
            'a',
            shares.reduce((a, b) => a + b),
            shares,
          ),
        ],
        values,
      }).advantages[0]!;
    const passed = estimate([0, 0.2, 1]);
    const notPassed = estimate([0, 0, 1]);
    expect(passed[1]![2]).toBeCloseTo(0.45, 10);
    expect(passed[1]![2]! - notPassed[1]![2]!).toBeCloseTo(0.2, 10);
    // The hall turn's last token is two tokens before it: the pass reaches it discounted by 0.25.
    expect(passed[0]![2]! - notPassed[0]![2]!).toBeCloseTo(0.05, 10);
    expect(passed[2]).toEqual(notPassed[2]);
  });

  it('without per-turn rewards puts the episode reward after the last model token, as before', () => {
    const credited = gae({ gamma: 0.9, lambda: 0.8 }).estimate({
      episodes: [walk('a', 1, [0, 0, 1])],
      values,
    });
    const whole = gae({ gamma: 0.9, lambda: 0.8 }).estimate({ episodes: [walk('a', 1)], values });
    expect(credited).toEqual(whole);
  });

  it('carries the reward of a turn without model tokens to the turn before it', () => {
    const silent = episode('a', 'g', 1, [
      { masks: [mask], reward: 0 },
      { masks: [[0, 0, 0]], reward: 0.2 },
      { masks: [mask], reward: 0.8 },
    ]);
    const { advantages } = gae({ whiten: false }).estimate({ episodes: [silent], values });
    expect(advantages[0]!.map((generation) => generation[2])).toEqual([1, 0, 0.8]);
  });
});
