import { describe, expect, it } from 'vitest';
import { meanInterval, wilsonInterval } from './stats';

describe('wilsonInterval', () => {
  it('matches the textbook values', () => {
    const p = wilsonInterval(8, 10);
    expect(p.rate).toBe(0.8);
    expect(p.low).toBeCloseTo(0.4902, 3);
    expect(p.high).toBeCloseTo(0.9433, 3);
  });
  it('stays inside [0, 1] at the edges', () => {
    expect(wilsonInterval(0, 20).low).toBe(0);
    expect(wilsonInterval(0, 20).high).toBeCloseTo(0.1611, 3);
    expect(wilsonInterval(20, 20).high).toBe(1);
  });
});

describe('meanInterval', () => {
  it('uses the t quantile for three seeds', () => {
    const { mean, low, high } = meanInterval([0.2, 0.4, 0.6]);
    expect(mean).toBeCloseTo(0.4);
    expect(high - mean).toBeCloseTo((4.303 * 0.2) / Math.sqrt(3), 6);
    expect(mean - low).toBeCloseTo(high - mean, 9);
  });
});
