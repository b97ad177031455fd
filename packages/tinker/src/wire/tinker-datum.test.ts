import { describe, expect, it } from 'vitest';
import { fromTinkerPerToken, toTinkerDatum } from './tinker-datum';

describe("our datum in Tinker's shifted layout", () => {
  // S = [10, 11, 12, 13]; our entry t concerns predicting S[t].
  const datum = {
    tokenIds: [10, 11, 12, 13],
    weights: [0, 0, 1, 0.5],
    samplerLogprobs: [0, -1, -2, -3],
    advantages: [0, 0.1, 0.2, 0.3],
  };

  it('feeds S[:-1] and asks position i for S[i+1], with the per-token inputs of S[i+1]', () => {
    const tinker = toTinkerDatum(datum, ['weights', 'logprobs', 'advantages']);
    expect(tinker.modelInput).toEqual([10, 11, 12]);
    expect(tinker.lossFnInputs).toEqual({
      target_tokens: [11, 12, 13],
      weights: [0, 1, 0.5],
      logprobs: [-1, -2, -3],
      advantages: [0.1, 0.2, 0.3],
    });
  });

  it('sends only the inputs the loss reads, and always the weights', () => {
    expect(Object.keys(toTinkerDatum(datum, ['weights']).lossFnInputs)).toEqual(['target_tokens', 'weights']);
  });

  it("aligns the server's per-target values with our tokenIds (entry 0 is 0)", () => {
    expect(fromTinkerPerToken([-1.5, -2.5, -3.5], 4, 'logprobs')).toEqual([0, -1.5, -2.5, -3.5]);
    expect(() => fromTinkerPerToken([-1.5], 4, 'logprobs')).toThrow(/returned 1 values for 3 targets/);
  });
});
