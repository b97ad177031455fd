import { describe, expect, it } from 'vitest';
import { episode } from '../test/episodes';
import { explainedVariance } from './explained-variance';

describe('explainedVariance', () => {
  // One generation of 4 tokens: a prompt token, then three model tokens.
  const one = episode('e', 'g', 1, [{ masks: [[0, 1, 1, 1]] }]);

  it('is 1 for a perfect critic, 0 for one that predicts the mean, and counts model tokens only', () => {
    const returns = [[[99, 1, 2, 3]]];
    expect(explainedVariance([one], [[[-50, 1, 2, 3]]], returns)).toBeCloseTo(1);
    expect(explainedVariance([one], [[[0, 2, 2, 2]]], returns)).toBeCloseTo(0);
    // Errors (1-3, 2-2, 3-1) = (-2, 0, 2): variance 8/3 against the returns' 2/3.
    expect(explainedVariance([one], [[[0, 3, 2, 1]]], returns)).toBeCloseTo(1 - 4);
  });

  it('is NaN when the returns do not vary', () => {
    expect(explainedVariance([one], [[[0, 0, 0, 0]]], [[[0, 5, 5, 5]]])).toBeNaN();
  });
});
