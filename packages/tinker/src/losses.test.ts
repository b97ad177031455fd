import { type Datum, InvalidArgumentError, type LossFn } from '@pilotrl/core';
import { describe, expect, it } from 'vitest';
import { builtinLossOf, surrogateDatums, tinkerLoss } from './losses';

const datum: Datum = {
  tokenIds: [1, 2, 3, 4, 5],
  weights: [0, 1, 1, 0.5, 1],
  samplerLogprobs: [0, -1.2, -0.7, -2.0, -0.3],
  advantages: [0, 1.5, -0.8, 2.0, -1.0],
};
const logprobs = [[0, -1.0, -0.9, -1.6, -0.35]];

function finiteDifferences(loss: LossFn, at: number[][]): number[][] {
  const h = 1e-6;
  return at.map((row, d) =>
    row.map((_, t) => {
      const shifted = (delta: number) =>
        at.map((r, e) => r.map((v, u) => (e === d && u === t ? v + delta : v)));
      return (
        (loss({ datums: [datum], logprobs: shifted(h) }).loss -
          loss({ datums: [datum], logprobs: shifted(-h) }).loss) /
        (2 * h)
      );
    }),
  );
}

describe("tinkerLoss: the server's built-in losses as LossFns", () => {
  it('computes SkyRL formulas, summed over weighted tokens', () => {
    const r = (t: number) => Math.exp(logprobs[0]![t]! - datum.samplerLogprobs![t]!);
    const w = datum.weights;
    const a = datum.advantages!;
    expect(tinkerLoss('cross_entropy')({ datums: [datum], logprobs }).loss).toBeCloseTo(
      -(w[1]! * -1.0 + w[2]! * -0.9 + w[3]! * -1.6 + w[4]! * -0.35),
      10,
    );
    let is = 0;
    let ppo = 0;
    for (let t = 1; t < 5; t++) {
      is += -w[t]! * r(t) * a[t]!;
      const clipped = Math.min(Math.max(r(t), 0.8), 1.2);
      ppo += -w[t]! * Math.min(r(t) * a[t]!, clipped * a[t]!);
    }
    expect(tinkerLoss('importance_sampling')({ datums: [datum], logprobs }).loss).toBeCloseTo(is, 10);
    expect(
      tinkerLoss('ppo', { clipLowThreshold: 0.8, clipHighThreshold: 1.2 })({ datums: [datum], logprobs })
        .loss,
    ).toBeCloseTo(ppo, 10);
  });

  it('returns gradients that match finite differences of the loss', () => {
    for (const loss of [tinkerLoss('cross_entropy'), tinkerLoss('importance_sampling'), tinkerLoss('ppo')]) {
      const { gradLogprobs } = loss({ datums: [datum], logprobs });
      const numeric = finiteDifferences(loss, logprobs);
      for (const [t, g] of gradLogprobs[0]!.entries()) expect(g).toBeCloseTo(numeric[0]![t]!, 5);
    }
  });

  it('is recognised by name or by tag, and any other LossFn is not', () => {
    expect(builtinLossOf(tinkerLoss('ppo', { clipHighThreshold: 1.28 }))).toEqual({
      name: 'ppo',
      clipLowThreshold: 0.8,
      clipHighThreshold: 1.28,
    });
    expect(builtinLossOf('importance_sampling')).toEqual({ name: 'importance_sampling' });
    expect(builtinLossOf((input) => tinkerLoss('cross_entropy')(input))).toBeUndefined();
    expect(() => builtinLossOf('dro' as 'ppo')).toThrow(/Unknown loss "dro"/);
    expect(() => tinkerLoss('ppo', { clipLowThreshold: 1.5 })).toThrow(InvalidArgumentError);
  });
});

describe('surrogateDatums: any LossFn as an importance_sampling pass', () => {
  // A loss the server does not have: a squared penalty on each logprob's distance to -1.
  const custom: LossFn = ({ datums, logprobs: lps }) => ({
    loss: datums.reduce((s, d, i) => s + d.weights.reduce((a, w, t) => a + w * (lps[i]![t]! + 1) ** 2, 0), 0),
    gradLogprobs: datums.map((d, i) => d.weights.map((w, t) => 2 * w * (lps[i]![t]! + 1))),
  });

  it("has the server loss's gradient at the current logprobs equal the custom loss's gradient", () => {
    const { gradLogprobs } = custom({ datums: [datum], logprobs });
    const surrogate = surrogateDatums([datum], logprobs, gradLogprobs);
    // The server's importance_sampling on the surrogate datums: its gradient, analytic and numeric.
    const serverLoss = tinkerLoss('importance_sampling');
    const serverGrad = (at: number[][]) => serverLoss({ datums: surrogate, logprobs: at }).gradLogprobs[0]!;
    for (const [t, g] of serverGrad(logprobs).entries()) expect(g).toBeCloseTo(gradLogprobs[0]![t]!, 12);
    const h = 1e-6;
    for (let t = 1; t < 5; t++) {
      const at = (delta: number) => [logprobs[0]!.map((v, u) => (u === t ? v + delta : v))];
      const numeric =
        (serverLoss({ datums: surrogate, logprobs: at(h) }).loss -
          serverLoss({ datums: surrogate, logprobs: at(-h) }).loss) /
        (2 * h);
      expect(numeric).toBeCloseTo(gradLogprobs[0]![t]!, 5);
    }
  });

  it('refuses a gradient on a token the server masks (weight 0)', () => {
    const grads = [[0, 1, 0, 0, 0]];
    const masked = { ...datum, weights: [0, 0, 1, 1, 1] };
    expect(() => surrogateDatums([masked], logprobs, grads)).toThrow(/token 1 of datum 0 a gradient/);
  });
});
