// Named starting points. `pilotrlReference` is the optimisation of the PilotRL paper: GRPO over
// groups of 16, PPO clip 0.2 with dual-clip 3.0, no KL, token-mean, plus the overlong penalty.
import type { UpdateConfig } from './update-step';

export const pilotrlReference = {
  /** Episodes sampled per task; the rollout runner reads this. */
  groupSize: 16,
  /** Reward components (by `@pilotrl/rewards` name) and their weights in the episode reward. */
  rewards: { outcome: 1, overlong: 1 },
  update: {
    estimator: 'grpo',
    estimatorArgs: { normalizeStd: true },
    loss: 'ppo',
    lossArgs: { clipLow: 0.2, clipHigh: 0.2, dualClip: 3, klCoef: 0 },
    aggregation: 'token-mean',
    filterZeroVarianceGroups: true,
  },
} as const satisfies {
  groupSize: number;
  rewards: Record<string, number>;
  update: Omit<UpdateConfig, 'adam'>;
};
