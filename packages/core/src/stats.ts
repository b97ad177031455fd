// The summary statistics every package reports with: means, the Wilson interval of a success rate,
// the Student-t interval of a mean over a few seeds (with exact t quantiles for any degrees of
// freedom), and one way to print a rate as a percentage.
import { InvalidArgumentError } from './errors';

export interface Interval {
  low: number;
  high: number;
}

/** z for a two-sided 95% interval: the 97.5% quantile of the standard normal. */
const Z95 = 1.959963984540054;

/** The arithmetic mean; 0 for no values. */
export function mean(values: readonly number[]): number {
  if (values.length === 0) return 0;
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** Sample (n - 1) standard deviation; 0 for fewer than two values. */
export function sampleStd(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const center = mean(values);
  return Math.sqrt(values.reduce((sum, value) => sum + (value - center) ** 2, 0) / (values.length - 1));
}

/**
 * The success rate of `successes` out of `trials` with its 95% Wilson score interval, which stays
 * inside [0, 1] and is sensible at 0 or n successes, where the normal approximation is not. With
 * no trials nothing is known: the rate is 0 and the interval the whole of [0, 1].
 */
export function wilsonInterval(successes: number, trials: number): Interval & { rate: number } {
  if (!(trials >= 0 && successes >= 0 && successes <= trials)) {
    throw new InvalidArgumentError(
      `wilsonInterval: got ${successes} successes out of ${trials} trials; pass 0 <= successes <= trials`,
    );
  }
  if (trials === 0) return { rate: 0, low: 0, high: 1 };
  const rate = successes / trials;
  const z2 = Z95 * Z95;
  const denominator = 1 + z2 / trials;
  const centre = (rate + z2 / (2 * trials)) / denominator;
  const half = (Z95 / denominator) * Math.sqrt((rate * (1 - rate)) / trials + z2 / (4 * trials * trials));
  // At 0 or n successes the exact bound is 0 or 1; rounding would leave it a hair inside.
  return {
    rate,
    low: successes === 0 ? 0 : Math.max(0, centre - half),
    high: successes === trials ? 1 : Math.min(1, centre + half),
  };
}

/**
 * The mean of `values` (e.g. one success rate per seed) with its 95% Student-t interval. With
 * fewer than two values there is no spread to measure: the interval is the mean itself (0 for none).
 */
export function meanInterval(values: readonly number[]): Interval & { mean: number } {
  const center = mean(values);
  if (values.length < 2) return { mean: center, low: center, high: center };
  const half = studentTQuantile(0.975, values.length - 1) * (sampleStd(values) / Math.sqrt(values.length));
  return { mean: center, low: center - half, high: center + half };
}

/** A rate as a percentage: `formatPercent(0.1234)` is `12.3%`. */
export function formatPercent(value: number, digits = 1): string {
  return `${(value * 100).toFixed(digits)}%`;
}

/**
 * The `p`-quantile of Student's t distribution with `degreesOfFreedom` (any positive number):
 * the t CDF, through the regularized incomplete beta function, inverted by bisection to double
 * precision. `studentTQuantile(0.975, 10)` is 2.2281.
 */
export function studentTQuantile(p: number, degreesOfFreedom: number): number {
  if (!(p > 0 && p < 1) || !(degreesOfFreedom > 0 && Number.isFinite(degreesOfFreedom))) {
    throw new InvalidArgumentError(
      `studentTQuantile: got p ${p} and ${degreesOfFreedom} degrees of freedom; pass 0 < p < 1 and a finite, positive number of degrees of freedom`,
    );
  }
  if (p === 0.5) return 0;
  if (p < 0.5) return -studentTQuantile(1 - p, degreesOfFreedom);
  const upperTail = 1 - p;
  let low = 0;
  let high = 1;
  while (studentTUpperTail(high, degreesOfFreedom) > upperTail) {
    low = high;
    high *= 2;
  }
  while (high - low > 1e-15 * high) {
    const middle = (low + high) / 2;
    if (middle === low || middle === high) break;
    if (studentTUpperTail(middle, degreesOfFreedom) > upperTail) low = middle;
    else high = middle;
  }
  return (low + high) / 2;
}

/** P(T > t) for t >= 0: half the regularized incomplete beta I_x(df / 2, 1 / 2), x = df / (df + t²). */
function studentTUpperTail(t: number, df: number): number {
  const squared = t * t;
  // 1 - x is computed directly: near x = 1 the subtraction would lose its digits.
  return regularizedIncompleteBeta(df / (df + squared), squared / (df + squared), df / 2, 0.5) / 2;
}

/** I_x(a, b), given x and 1 - x; the continued fraction where it converges fast, else by symmetry. */
function regularizedIncompleteBeta(x: number, oneMinusX: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (oneMinusX <= 0) return 1;
  const front = Math.exp(a * Math.log(x) + b * Math.log(oneMinusX) - lnBeta(a, b));
  if (x < (a + 1) / (a + b + 2)) return (front * betaContinuedFraction(x, a, b)) / a;
  return 1 - (front * betaContinuedFraction(oneMinusX, b, a)) / b;
}

/** The continued fraction of the incomplete beta function, by the modified Lentz method. */
function betaContinuedFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let result = d;
  for (let m = 1; m <= 1_000_000; m++) {
    const even = (m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m));
    d = 1 + even * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + even / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    result *= d * c;
    const odd = (-(a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1));
    d = 1 + odd * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + odd / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const step = d * c;
    result *= step;
    if (Math.abs(step - 1) < 1e-16) return result;
  }
  return result;
}

const LANCZOS = [
  0.9999999999998099, 676.5203681218851, -1259.1392167224028, 771.3234287776531, -176.6150291621406,
  12.507343278686905, -0.13857109526572012, 9.984369578019572e-6, 1.5056327351493116e-7,
];

/** ln Γ(x) for x > 0, by the Lanczos approximation (g = 7), about 15 significant digits. */
function lnGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x);
  const shifted = x - 1;
  let sum = LANCZOS[0]!;
  for (let i = 1; i < LANCZOS.length; i++) sum += LANCZOS[i]! / (shifted + i);
  const t = shifted + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (shifted + 0.5) * Math.log(t) - t + Math.log(sum);
}

function lnBeta(a: number, b: number): number {
  return lnGamma(a) + lnGamma(b) - lnGamma(a + b);
}
