import { createRng, type Datum, type LossFn } from '@pilotrl/core';
import { describe, expect, it } from 'vitest';
import { aggregationWeights } from './aggregation';
import { importanceSamplingLoss } from './importance-sampling-loss';
import { klPenalty } from './policy-loss';
import { ppoLoss } from './ppo-loss';
import { policyLosses } from './registries';

const ln = Math.log;

describe('ppo loss', () => {
  // Datum 0: [prompt, A=+1 ratio 1.5 (clipped high), env token, A=-1 ratio 0.5 (clipped low)].
  // Datum 1: [prompt, A=-1 ratio 4 (dual-clipped), A=+2 ratio 1.1, A=-1 ratio 2 (inside c)].
  const datums: Datum[] = [
    {
      tokenIds: [1, 2, 3, 4],
      weights: [0, 1, 0, 1],
      advantages: [0, 1, 50, -1],
      samplerLogprobs: [0, ln(0.4), ln(0.9), ln(0.6)],
    },
    {
      tokenIds: [1, 2, 3, 4],
      weights: [0, 1, 1, 1],
      advantages: [0, -1, 2, -1],
      samplerLogprobs: [0, ln(0.1), ln(0.5), ln(0.2)],
    },
  ];
  const logprobs = [
    [0, ln(0.6), ln(0.1), ln(0.3)],
    [0, ln(0.4), ln(0.55), ln(0.4)],
  ];

  it('clips high and low, dual-clips negative advantages, and ignores env tokens', () => {
    const out = ppoLoss({ clipLow: 0.2, clipHigh: 0.28, dualClip: 3 })({ datums, logprobs });
    // -1.28 + 0.8 + 3 - 2.2 + 2
    expect(out.loss).toBeCloseTo(2.32, 10);
    expect(out.gradLogprobs[0]).toEqual([0, 0, 0, 0]);
    expect(out.gradLogprobs[1]![1]).toBe(0);
    expect(out.gradLogprobs[1]![2]).toBeCloseTo(-2.2, 10);
    expect(out.gradLogprobs[1]![3]).toBeCloseTo(2, 10);
    expect(out.metrics!['losses/clipfrac']).toBeCloseTo(0.4, 10);
    expect(out.metrics!['losses/dual_clipfrac']).toBeCloseTo(0.2, 10);
  });

  it('without dual clip lets a negative advantage with a large ratio grow the loss', () => {
    const out = ppoLoss({ clipLow: 0.2, clipHigh: 0.28 })({ datums, logprobs });
    expect(out.loss).toBeCloseTo(2.32 - 3 + 4, 10);
    expect(out.gradLogprobs[1]![1]).toBeCloseTo(4, 10);
  });

  it('matches finite differences, with a KL term of either estimator', () => {
    const rng = createRng(7);
    for (const klEstimator of ['k1', 'k3'] as const) {
      const random = randomBatch(rng);
      const loss = ppoLoss({ clipLow: 0.2, clipHigh: 0.28, dualClip: 3, klCoef: 0.3, klEstimator });
      expectGradientsMatchFiniteDifferences(loss, random.datums, random.logprobs);
    }
  });

  it('weights tokens by datum weights (aggregation happens there)', () => {
    const weighted = datums.map((datum) => ({ ...datum, weights: datum.weights.map((w) => w * 0.5) }));
    const loss = ppoLoss({ clipLow: 0.2, clipHigh: 0.28, dualClip: 3 });
    expect(loss({ datums: weighted, logprobs }).loss).toBeCloseTo(1.16, 10);
  });

  it('asks for old logprobs when they are missing', () => {
    const { samplerLogprobs: _, ...withoutOld } = datums[0]!;
    expect(() => ppoLoss()({ datums: [withoutOld], logprobs })).toThrow(/datum 0 has no samplerLogprobs/);
  });
});

describe('kl penalty', () => {
  it('k1 is the log ratio and k3 is e^x - x - 1', () => {
    expect(klPenalty('k1', ln(0.5), ln(0.25))).toEqual({ value: Math.LN2, grad: 1 });
    const k3 = klPenalty('k3', ln(0.5), ln(0.25));
    expect(k3.value).toBeCloseTo(0.5 - ln(0.5) - 1, 12);
    expect(k3.grad).toBeCloseTo(0.5, 12);
    expect(klPenalty('k3', -1.3, -1.3).value).toBe(0);
  });
});

describe('importance_sampling loss', () => {
  it('is -A·ratio with gradient -A·ratio, env tokens excluded', () => {
    const datum: Datum = {
      tokenIds: [1, 2, 3],
      weights: [0, 1, 0],
      advantages: [0, 2, 7],
      samplerLogprobs: [0, ln(0.5), ln(0.5)],
    };
    const out = importanceSamplingLoss()({ datums: [datum], logprobs: [[0, ln(0.25), ln(0.9)]] });
    expect(out.loss).toBeCloseTo(-1, 12);
    expect(out.gradLogprobs[0]).toEqual([0, -1, 0]);
  });

  it('matches finite differences', () => {
    const random = randomBatch(createRng(11));
    expectGradientsMatchFiniteDifferences(
      importanceSamplingLoss({ klCoef: 0.1 }),
      random.datums,
      random.logprobs,
    );
  });
});

describe('aggregation weights', () => {
  const masks = [
    [0, 1, 1, 0, 1],
    [0, 0, 1],
  ];
  it('token-mean gives every model token the same weight', () => {
    expect(aggregationWeights(masks, 'token-mean')).toEqual([
      [0, 0.25, 0.25, 0, 0.25],
      [0, 0, 0.25],
    ]);
  });
  it('seq-mean-token-sum sums within a sequence and averages sequences', () => {
    expect(aggregationWeights(masks, 'seq-mean-token-sum')).toEqual([
      [0, 0.5, 0.5, 0, 0.5],
      [0, 0, 0.5],
    ]);
  });
  it('seq-mean-token-mean averages within and across sequences', () => {
    const weights = aggregationWeights([...masks, [0, 0]], 'seq-mean-token-mean');
    expect(weights[0]![1]).toBeCloseTo(1 / 6, 12);
    expect(weights[1]![2]).toBe(0.5);
    expect(weights[2]).toEqual([0, 0]);
  });
});

describe('the loss registry', () => {
  it('builds a registered loss from its arguments', () => {
    expect(policyLosses.ids()).toEqual(['importance_sampling', 'ppo']);
    expect(() => policyLosses.get('ppo')({ clipLow: 2 })).toThrow(/clipLow/);
  });
});

/** Datums with random advantages, old/reference logprobs, and current logprobs off the clip kinks. */
function randomBatch(rng: ReturnType<typeof createRng>): { datums: Datum[]; logprobs: number[][] } {
  const datums: Datum[] = [];
  const logprobs: number[][] = [];
  for (let d = 0; d < 3; d++) {
    const length = 6;
    const old = Array.from({ length }, () => -0.2 - 2 * rng.float());
    const current = old.map((value) => value + (rng.float() - 0.5) * 1.6);
    datums.push({
      tokenIds: Array.from({ length }, (_, t) => t + 1),
      weights: Array.from({ length }, (_, t) => (t === 0 || t === 3 ? 0 : 0.5 + rng.float())),
      advantages: Array.from({ length }, () => rng.normal()),
      samplerLogprobs: old,
      referenceLogprobs: old.map((value) => value + (rng.float() - 0.5)),
    });
    logprobs.push(current);
  }
  return { datums, logprobs };
}

function expectGradientsMatchFiniteDifferences(loss: LossFn, datums: Datum[], logprobs: number[][]): void {
  const { gradLogprobs } = loss({ datums, logprobs });
  const h = 1e-6;
  let checked = 0;
  logprobs.forEach((row, d) => {
    row.forEach((_, t) => {
      const shifted = (delta: number) =>
        logprobs.map((r, i) => r.map((v, j) => (i === d && j === t ? v + delta : v)));
      const numeric =
        (loss({ datums, logprobs: shifted(h) }).loss - loss({ datums, logprobs: shifted(-h) }).loss) /
        (2 * h);
      expect(gradLogprobs[d]![t]).toBeCloseTo(numeric, 5);
      checked++;
    });
  });
  expect(checked).toBe(18);
  // Env tokens (weight 0) get no gradient however their numbers look.
  expect(gradLogprobs.every((row) => row[3] === 0 && row[0] === 0)).toBe(true);
}
