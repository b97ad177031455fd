import { describe, expect, it } from 'vitest';
import { pairedDifference, type SeedValue, unpairedDifference, verdictOf } from './seed-difference';

const seeds = (values: number[]): SeedValue[] => values.map((value, i) => ({ seed: i + 1, value }));

describe('the difference of two variants over seeds', () => {
  it('pairs by seed: the t-interval of the per-seed differences over the seeds both have', () => {
    // Differences 1, 1, 2: mean 4/3, s = 0.5774, t(0.975, 2) = 4.3027, half-width 1.4343.
    const d = pairedDifference(seeds([1, 2, 3]), [...seeds([0, 1, 1]), { seed: 9, value: 100 }])!;
    expect(d.pairing).toBe('paired');
    expect(d.seeds).toEqual([3, 3]);
    expect(d.degreesOfFreedom).toBe(2);
    expect(d.difference).toBeCloseTo(4 / 3, 12);
    expect(d.low).toBeCloseTo(4 / 3 - 1.434217576637, 9);
    expect(d.high).toBeCloseTo(4 / 3 + 1.434217576637, 9);
  });

  it("unpaired: Welch's interval with the Welch-Satterthwaite degrees of freedom", () => {
    // Equal sizes and spreads: 2(n - 1) = 4 degrees of freedom, t(0.975, 4) = 2.7764.
    const equal = unpairedDifference(seeds([1, 2, 3]), seeds([4, 5, 6]))!;
    expect(equal.pairing).toBe('unpaired');
    expect(equal.degreesOfFreedom).toBeCloseTo(4, 12);
    expect(equal.difference).toBeCloseTo(-3, 12);
    expect(equal.low).toBeCloseTo(-3 - 2.266957936, 8);
    expect(equal.high).toBeCloseTo(-3 + 2.266957936, 8);
    // Unequal sizes and spreads: variances of the means 1/3 and 5/3, ν = 4 / (1/18 + 25/27).
    const unequal = unpairedDifference(seeds([1, 2, 3]), seeds([1, 3, 5, 7]))!;
    expect(unequal.seeds).toEqual([3, 4]);
    expect(unequal.degreesOfFreedom).toBeCloseTo(4.075471698, 8);
  });

  it('gives no interval from fewer than 2 seeds a side, or 2 seeds in common', () => {
    expect(unpairedDifference(seeds([1]), seeds([1, 2]))).toBeUndefined();
    expect(pairedDifference(seeds([1, 2]), [{ seed: 2, value: 1 }])).toBeUndefined();
    expect(verdictOf(undefined).verdict).toBe('not shown');
  });

  it('shows, contradicts or leaves open the claim that a is higher', () => {
    expect(verdictOf(pairedDifference(seeds([2, 3.1, 4]), seeds([1, 2, 3])))).toEqual({
      verdict: 'shown',
      why: 'the interval excludes 0 above',
    });
    expect(verdictOf(pairedDifference(seeds([1, 2, 3]), seeds([2, 3.1, 4]))).verdict).toBe('contradicted');
    expect(verdictOf(pairedDifference(seeds([1, 3, 3]), seeds([2, 2, 2.5]))).verdict).toBe('not shown');
    // Every seed moved by the same amount (up to rounding): an interval with no width calls nothing.
    expect(verdictOf(pairedDifference(seeds([4.0, 4.05, 4.1]), seeds([3.0, 3.05, 3.1])))).toEqual({
      verdict: 'not shown',
      why: 'every seed gave the same difference, so the t-interval has no width',
    });
  });
});
