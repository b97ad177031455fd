// The advantage-estimator contract: episodes in, one advantage per generated token out; and its
// descriptor, what a plug-in registers so that a curriculum can name the estimator (`estimator:`)
// with its options (`estimatorOptions:`), and what the estimator requires of the run.
import type { z } from 'zod';
import type { Episode } from './episode';

/** Per-token numbers laid out like the episodes: `[episode][generation][token]`. */
export type TokenTable = number[][][];

export interface AdvantageInput {
  /** Episodes with `reward` set; episodes sharing `groupId` form a group. */
  episodes: readonly Episode[];
  /** Value-head estimates per token, laid out like the episodes (needed by `gae`). */
  values?: TokenTable;
}

export interface AdvantageResult {
  /** Advantage per token; 0 on every token whose loss mask is 0. */
  advantages: TokenTable;
  /** Value targets per token, for estimators that train a value head. */
  returns?: TokenTable;
}

export interface AdvantageEstimator {
  readonly name: string;
  /** True when `estimate` needs `values` from a value head. */
  readonly needsValues: boolean;
  estimate(input: AdvantageInput): AdvantageResult;
}

/**
 * What an estimator needs of the run, checked when a config is read: `groups`, several samples of
 * each task (groupSize of at least 2); `valueHead`, a value head trained beside the policy.
 */
export type EstimatorRequirement = 'groups' | 'valueHead';

export interface EstimatorDescriptor {
  /** The name a config gives (`estimator: <id>`). */
  readonly id: string;
  readonly description?: string;
  /** Its options (`estimatorOptions:` of a stage), checked with this schema when a config is read. */
  readonly optionsSchema: z.ZodType;
  readonly requires: readonly EstimatorRequirement[];
  /** The estimator for options that passed `optionsSchema`. */
  create(options: unknown): AdvantageEstimator;
}
