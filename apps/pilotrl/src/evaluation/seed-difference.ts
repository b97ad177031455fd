// The rule that decides a claim "a is higher than b" from a few seeds of each: the difference of
// the means over seeds with its 95% Student-t interval. Paired by seed where the two share each
// seed's starting point (the t-interval of the per-seed differences, so what the shared start put in
// both cancels); unpaired where they do not (Welch's interval over the two sets of seed values, with
// the Welch-Satterthwaite degrees of freedom, not assuming equal spreads).
import { mean, sampleStd, studentTQuantile } from '@pilotrl/core';

/** One value per seed, e.g. a variant's final success rate on a split. */
export interface SeedValue {
  seed: number;
  value: number;
}

export interface SeedDifference {
  pairing: 'paired' | 'unpaired';
  /** Mean of a minus mean of b (paired: the mean of the per-seed differences). */
  difference: number;
  /** The 95% t-interval of the difference. */
  low: number;
  high: number;
  /** Seeds behind each side; paired, the seeds both have (the same number twice). */
  seeds: [number, number];
  degreesOfFreedom: number;
}

/** The t-interval of the per-seed differences a - b over the seeds both have; undefined under 2 pairs. */
export function pairedDifference(
  a: readonly SeedValue[],
  b: readonly SeedValue[],
): SeedDifference | undefined {
  const bySeed = new Map(b.map((point) => [point.seed, point.value]));
  const differences = a.flatMap((point) => {
    const other = bySeed.get(point.seed);
    return other === undefined ? [] : [point.value - other];
  });
  const n = differences.length;
  if (n < 2) return undefined;
  const difference = mean(differences);
  const half = studentTQuantile(0.975, n - 1) * (sampleStd(differences) / Math.sqrt(n));
  return {
    pairing: 'paired',
    difference,
    low: difference - half,
    high: difference + half,
    seeds: [n, n],
    degreesOfFreedom: n - 1,
  };
}

/** Welch's t-interval of mean(a) - mean(b), seeds not matched; undefined when a side has under 2 seeds. */
export function unpairedDifference(
  a: readonly SeedValue[],
  b: readonly SeedValue[],
): SeedDifference | undefined {
  if (a.length < 2 || b.length < 2) return undefined;
  const values = (side: readonly SeedValue[]) => side.map((point) => point.value);
  const [va, vb] = [a, b].map((side) => sampleStd(values(side)) ** 2 / side.length) as [number, number];
  const difference = mean(values(a)) - mean(values(b));
  const se = Math.sqrt(va + vb);
  // With no spread on either side the Welch-Satterthwaite formula is 0/0; the interval has no width.
  const degreesOfFreedom =
    se === 0
      ? a.length + b.length - 2
      : (va + vb) ** 2 / (va ** 2 / (a.length - 1) + vb ** 2 / (b.length - 1));
  const half = se === 0 ? 0 : studentTQuantile(0.975, degreesOfFreedom) * se;
  return {
    pairing: 'unpaired',
    difference,
    low: difference - half,
    high: difference + half,
    seeds: [a.length, b.length],
    degreesOfFreedom,
  };
}

export type Verdict = 'shown' | 'contradicted' | 'not shown';

/**
 * The verdict on "a is higher than b": shown when the interval of the difference excludes 0 above,
 * contradicted when it excludes 0 below, not shown otherwise. An interval with no width (every seed
 * moved by the same amount) measured no spread, so it calls nothing either way.
 */
export function verdictOf(difference: SeedDifference | undefined): { verdict: Verdict; why: string } {
  if (difference === undefined)
    return { verdict: 'not shown', why: 'fewer than 2 seeds give no interval over seeds' };
  // Rounding leaves a few ulps of width where every seed's difference was the same.
  if (difference.high - difference.low <= 1e-12 * Math.max(1, Math.abs(difference.difference))) {
    return {
      verdict: 'not shown',
      why: 'every seed gave the same difference, so the t-interval has no width',
    };
  }
  if (difference.low > 0) return { verdict: 'shown', why: 'the interval excludes 0 above' };
  if (difference.high < 0) return { verdict: 'contradicted', why: 'the interval excludes 0 below' };
  return { verdict: 'not shown', why: 'the interval includes 0' };
}
