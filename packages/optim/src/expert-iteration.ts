// Expert iteration (STaR, rejection-sampling fine-tuning): the policy imitates the best of its own
// play. Each iteration's caller rolls out, keeps the episodes its stage reward prefers, weighted
// (`selectByReward`, rendered by `episodeDatums`), and may add lost groups relabelled as the goal
// they reached (`relabelEpisodes` of @pilotrl/agent); this step adds them to everything kept so
// far and runs `sftSteps` SFT steps, each on a batch drawn with replacement from the kept steps
// (with probability `mix`) or from the demonstrations, so what was taught first is not forgotten.
import {
  type AdamParams,
  createRng,
  type Datum,
  datumSchema,
  InvalidArgumentError,
  parseOrThrow,
  type RngState,
  rngFromState,
  type TrainablePolicy,
} from '@pilotrl/core';
import { z } from 'zod';

export const expertIterationConfigSchema = z.strictObject({
  /** SFT steps per iteration. */
  sftSteps: z.number().int().positive().default(48),
  batchSize: z.number().int().positive().default(32),
  /** Probability that a step's batch comes from the kept steps rather than the demonstrations. */
  mix: z.number().min(0).max(1).default(0.8),
  /** The kept steps of the most recent iterations, at most this many (oldest dropped first). */
  maxKept: z.number().int().positive().default(100_000),
  learningRate: z.number().positive().default(1e-3),
  /** Seed of the batch draws. */
  seed: z.number().int().nonnegative().default(0),
});
export type ExpertIterationConfig = z.input<typeof expertIterationConfigSchema>;

/** The SFT update to run (token-mean cross-entropy, one optimizer step): `sftStep` of @pilotrl/policy-tfjs. */
export type SftStepFn = (
  policy: TrainablePolicy,
  batch: readonly Datum[],
  adam: AdamParams,
) => Promise<{ loss: number }>;

export interface ExpertIterationInput {
  /**
   * This iteration's new steps to imitate, by where they came from: the policy's own episodes as
   * played (their weights carry the stage reward's preference), and hindsight relabels.
   */
  kept: { own: readonly Datum[]; hindsight: readonly Datum[] };
  /** The supervised data mixed in; may be empty when `mix` is 1. */
  demonstrations: readonly Datum[];
  /** SFT steps this time, else the config's `sftSteps` (e.g. a final annealing run). */
  sftSteps?: number;
  /** A learning rate, or one per SFT step of this call (from 0), else the config's. */
  learningRate?: number | ((step: number) => number);
}

export interface ExpertIteration {
  step(policy: TrainablePolicy, input: ExpertIterationInput): Promise<{ metrics: Record<string, number> }>;
  /** Steps kept so far (after `maxKept`). */
  readonly keptSteps: number;
  /** Everything a resumed run needs to continue exactly: the kept steps and the batch-draw RNG. */
  exportState(): ExpertIterationState;
  importState(state: ExpertIterationState): void;
}

export const expertIterationStateSchema = z.object({
  kept: z.array(datumSchema),
  rng: z.array(z.number().int().nonnegative()).length(4),
});
export type ExpertIterationState = { kept: Datum[]; rng: RngState };

export function createExpertIteration(config: ExpertIterationConfig, sftStep: SftStepFn): ExpertIteration {
  const resolved = parseOrThrow(expertIterationConfigSchema, config, 'expert iteration config');
  let rng = createRng(`expert-iteration/${resolved.seed}`);
  let kept: Datum[] = [];
  return {
    get keptSteps() {
      return kept.length;
    },
    exportState: () => ({
      kept: kept.map((d) => ({
        tokenIds: d.tokenIds,
        weights: d.weights,
        ...(d.allowedTokenIds === undefined ? {} : { allowedTokenIds: d.allowedTokenIds }),
      })),
      rng: rng.state(),
    }),
    importState(state) {
      const parsed = parseOrThrow(expertIterationStateSchema, state, 'expert iteration state');
      kept = parsed.kept;
      const [a, b, c, d] = parsed.rng;
      rng = rngFromState([a!, b!, c!, d!]);
    },
    async step(policy, input) {
      kept.push(...input.kept.own, ...input.kept.hindsight);
      if (kept.length > resolved.maxKept) kept = kept.slice(kept.length - resolved.maxKept);
      if (kept.length === 0 && input.demonstrations.length === 0) {
        throw new InvalidArgumentError(
          'expert iteration has nothing to imitate: no step kept so far and no demonstrations',
        );
      }
      const steps = input.sftSteps ?? resolved.sftSteps;
      const rate = input.learningRate ?? resolved.learningRate;
      let keptBatches = 0;
      let lossSum = 0;
      for (let step = 0; step < steps; step++) {
        const fromKept = input.demonstrations.length === 0 || (kept.length > 0 && rng.float() < resolved.mix);
        const source = fromKept ? kept : input.demonstrations;
        if (fromKept) keptBatches += 1;
        const batch = Array.from({ length: resolved.batchSize }, () => rng.pick(source));
        const { loss } = await sftStep(policy, batch, {
          learningRate: typeof rate === 'number' ? rate : rate(step),
        });
        lossSum += loss;
      }
      return {
        metrics: {
          'expert_iteration/kept_own': input.kept.own.length,
          'expert_iteration/kept_hindsight': input.kept.hindsight.length,
          'expert_iteration/kept_total': kept.length,
          'expert_iteration/kept_batches': keptBatches,
          'expert_iteration/demonstration_batches': steps - keptBatches,
          'losses/sft_loss': steps === 0 ? 0 : lossSum / steps,
        },
      };
    },
  };
}
