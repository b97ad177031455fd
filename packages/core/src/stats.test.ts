import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from './errors';
import { formatPercent, mean, meanInterval, sampleStd, studentTQuantile, wilsonInterval } from './stats';

describe('mean and sampleStd', () => {
  it('average and spread a list, with 0 where there is too little to measure', () => {
    expect(mean([1, 2, 6])).toBe(3);
    expect(mean([])).toBe(0);
    expect(sampleStd([2, 4, 4, 4, 5, 5, 7, 9])).toBeCloseTo(Math.sqrt(32 / 7), 12);
    expect(sampleStd([5])).toBe(0);
  });
});

describe('wilsonInterval', () => {
  it('matches the textbook values', () => {
    const { rate, low, high } = wilsonInterval(8, 10);
    expect(rate).toBe(0.8);
    expect(low).toBeCloseTo(0.4902, 4);
    expect(high).toBeCloseTo(0.9433, 4);
  });

  it('stays inside [0, 1] and reaches the edge at 0 or n successes', () => {
    expect(wilsonInterval(0, 20).low).toBe(0);
    expect(wilsonInterval(0, 20).high).toBeCloseTo(0.1611, 4);
    expect(wilsonInterval(20, 20).high).toBe(1);
    // 20 of 20: [20 / (20 + z²), 1].
    expect(wilsonInterval(20, 20).low).toBeCloseTo(0.8389, 4);
    for (const [successes, trials] of [
      [0, 1],
      [1, 1],
      [1, 3],
      [499, 1000],
    ] as const) {
      const { rate, low, high } = wilsonInterval(successes, trials);
      expect(low).toBeGreaterThanOrEqual(0);
      expect(high).toBeLessThanOrEqual(1);
      expect(low).toBeLessThanOrEqual(rate);
      expect(high).toBeGreaterThanOrEqual(rate);
    }
  });

  it('narrows as trials grow', () => {
    const small = wilsonInterval(5, 10);
    const large = wilsonInterval(500, 1000);
    expect(large.high - large.low).toBeLessThan(small.high - small.low);
  });

  it('knows nothing from no trials: rate 0, interval [0, 1]', () => {
    expect(wilsonInterval(0, 0)).toEqual({ rate: 0, low: 0, high: 1 });
  });

  it('refuses more successes than trials', () => {
    expect(() => wilsonInterval(3, 2)).toThrow(InvalidArgumentError);
    expect(() => wilsonInterval(-1, 2)).toThrow(/0 <= successes <= trials/);
  });
});

describe('studentTQuantile', () => {
  it('matches the tables at the 97.5% point', () => {
    for (const [df, t] of [
      [1, 12.7062],
      [2, 4.3027],
      [3, 3.1824],
      [9, 2.2622],
      [10, 2.2281],
      [11, 2.201],
      [20, 2.086],
      [30, 2.0423],
      [100, 1.984],
    ] as const) {
      expect(studentTQuantile(0.975, df), `df ${df}`).toBeCloseTo(t, 4);
    }
  });

  it('tends to the normal quantile as degrees of freedom grow', () => {
    expect(studentTQuantile(0.975, 1e6)).toBeCloseTo(1.959966, 6);
    expect(studentTQuantile(0.975, 1e9)).toBeCloseTo(1.959964, 6);
  });

  it('gives other points, the lower tail by symmetry, and fractional degrees of freedom', () => {
    expect(studentTQuantile(0.995, 1)).toBeCloseTo(63.6567, 4);
    expect(studentTQuantile(0.95, 5)).toBeCloseTo(2.015, 3);
    expect(studentTQuantile(0.025, 4)).toBeCloseTo(-2.7764, 4);
    expect(studentTQuantile(0.5, 7)).toBe(0);
    const half = studentTQuantile(0.975, 2.5);
    expect(half).toBeGreaterThan(studentTQuantile(0.975, 3));
    expect(half).toBeLessThan(studentTQuantile(0.975, 2));
  });

  it('refuses a probability outside (0, 1) or degrees of freedom that are not positive', () => {
    expect(() => studentTQuantile(1, 3)).toThrow(InvalidArgumentError);
    expect(() => studentTQuantile(0.975, 0)).toThrow(/degrees of freedom/);
  });
});

describe('meanInterval', () => {
  it('uses the t quantile for three seeds', () => {
    const { mean: center, low, high } = meanInterval([0.2, 0.4, 0.6]);
    expect(center).toBeCloseTo(0.4, 12);
    expect(high - center).toBeCloseTo((4.3027 * 0.2) / Math.sqrt(3), 4);
    expect(center - low).toBeCloseTo(high - center, 12);
  });

  it('uses the exact quantile beyond ten seeds, wider than the normal one', () => {
    const values = Array.from({ length: 12 }, (_, i) => i / 12);
    const { mean: center, high } = meanInterval(values);
    const normalHalf = (1.96 * sampleStd(values)) / Math.sqrt(12);
    expect((high - center) / normalHalf).toBeCloseTo(2.201 / 1.96, 3);
  });

  it('is the mean itself with fewer than two values', () => {
    expect(meanInterval([0.3])).toEqual({ mean: 0.3, low: 0.3, high: 0.3 });
    expect(meanInterval([])).toEqual({ mean: 0, low: 0, high: 0 });
  });
});

describe('formatPercent', () => {
  it('prints a rate as a percentage with one decimal by default', () => {
    expect(formatPercent(0.1234)).toBe('12.3%');
    expect(formatPercent(1)).toBe('100.0%');
    expect(formatPercent(0.5, 0)).toBe('50%');
  });
});
