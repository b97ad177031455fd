// Learning-rate schedules, as functions from a 0-based step to a rate. Every training loop in the
// project (SFT, RL stages, experiments) takes its schedule from here.

export interface WarmupCosineOptions {
  /** Peak learning rate, reached at the end of warmup. */
  peak: number;
  warmupSteps: number;
  totalSteps: number;
  /** Final learning rate as a fraction of the peak (default 0.1). */
  finalRatio?: number;
}

/** Linear warmup from peak/warmupSteps to the peak, then cosine decay to peak·finalRatio. */
export function warmupCosine({ peak, warmupSteps, totalSteps, finalRatio = 0.1 }: WarmupCosineOptions) {
  return (step: number): number => {
    if (step < warmupSteps) return (peak * (step + 1)) / warmupSteps;
    const span = Math.max(1, totalSteps - warmupSteps);
    const progress = Math.min(1, (step - warmupSteps) / span);
    return peak * (finalRatio + (1 - finalRatio) * 0.5 * (1 + Math.cos(Math.PI * progress)));
  };
}

/** Linear warmup from peak/warmupSteps to the peak, then constant. */
export function linearWarmup({ peak, warmupSteps }: { peak: number; warmupSteps: number }) {
  return (step: number): number => peak * Math.min(1, (step + 1) / Math.max(1, warmupSteps));
}

/** A linear decay from `from` at step 0 towards 0 at step `steps` (the last step trains at from/steps). */
export function linearAnneal({ from, steps }: { from: number; steps: number }) {
  return (step: number): number => from * Math.max(0, 1 - step / steps);
}
