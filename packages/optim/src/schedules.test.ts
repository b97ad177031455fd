// The learning-rate schedules every training loop takes: warm-up, cosine decay, linear anneal.
import { describe, expect, it } from 'vitest';
import { linearAnneal, linearWarmup, warmupCosine } from './schedules';

describe('schedules', () => {
  it('warm up linearly, then hold, decay by cosine or anneal linearly to zero', () => {
    const warm = linearWarmup({ peak: 1, warmupSteps: 4 });
    expect([0, 1, 2, 3, 4, 100].map(warm)).toEqual([0.25, 0.5, 0.75, 1, 1, 1]);
    const anneal = linearAnneal({ from: 2, steps: 4 });
    expect([0, 1, 2, 3, 4, 9].map(anneal)).toEqual([2, 1.5, 1, 0.5, 0, 0]);
    const cosine = warmupCosine({ peak: 1, warmupSteps: 2, totalSteps: 12, finalRatio: 0 });
    expect(cosine(0)).toBe(0.5);
    expect(cosine(2)).toBe(1);
    expect(cosine(7)).toBeCloseTo(0.5, 12);
    expect(cosine(12)).toBeCloseTo(0, 12);
  });

  it('decays by cosine to the final ratio of the peak and stays there', () => {
    const lr = warmupCosine({ peak: 1, warmupSteps: 10, totalSteps: 110, finalRatio: 0.1 });
    expect(lr(0)).toBeCloseTo(0.1);
    expect(lr(9)).toBeCloseTo(1);
    expect(lr(60)).toBeCloseTo(0.55);
    expect(lr(110)).toBeCloseTo(0.1);
    expect(lr(500)).toBeCloseTo(0.1);
  });
});
