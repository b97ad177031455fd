// Confidence intervals for success rates: the Wilson score interval, which stays inside [0, 1]
// and behaves at 0% and 100% where the normal approximation does not.

export interface Proportion {
  successes: number;
  total: number;
  rate: number;
  /** 95% Wilson interval bounds. */
  low: number;
  high: number;
}

const Z95 = 1.959963984540054;

export function wilsonInterval(successes: number, total: number): Proportion {
  if (total === 0) return { successes, total, rate: 0, low: 0, high: 0 };
  const p = successes / total;
  const denominator = 1 + (Z95 * Z95) / total;
  const center = (p + (Z95 * Z95) / (2 * total)) / denominator;
  const half = (Z95 * Math.sqrt((p * (1 - p)) / total + (Z95 * Z95) / (4 * total * total))) / denominator;
  return { successes, total, rate: p, low: Math.max(0, center - half), high: Math.min(1, center + half) };
}

/** Mean with a 95% normal interval (t-quantile for small samples) over seeds. */
export function meanInterval(values: readonly number[]): { mean: number; low: number; high: number } {
  const n = values.length;
  if (n === 0) return { mean: 0, low: 0, high: 0 };
  const mean = values.reduce((sum, v) => sum + v, 0) / n;
  if (n === 1) return { mean, low: mean, high: mean };
  const variance = values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / (n - 1);
  // Two-sided 97.5% quantiles of Student's t for 1..9 degrees of freedom, then the normal value.
  const t = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262][n - 2] ?? Z95;
  const half = t * Math.sqrt(variance / n);
  return { mean, low: mean - half, high: mean + half };
}

export function formatPercent(value: number): string {
  return `${(value * 100).toFixed(1)}%`;
}
