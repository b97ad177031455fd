// What a reward function of this package may offer beyond core's `RewardFn`: per-turn components
// and the judge verdict behind its numbers. `composeRewards` writes both into the episode record.
import {
  type Episode,
  InvalidArgumentError,
  type JudgeResult,
  type RewardComponents,
  type RewardFn,
} from '@pilotrl/core';
import { z } from 'zod';

export interface EpisodeRewardFn extends RewardFn {
  /** One record per turn, written into `turn.rewards`; a breakdown, not added to the sum again. */
  computeTurns?(episode: Episode): RewardComponents[];
  /**
   * True when the per-turn records are where the components are earned: each component is the sum
   * of its per-turn values, so `composeRewards` credits them to those turns (`turn.reward`).
   */
  readonly creditsTurns?: boolean;
  /** The judge verdict behind this function's components for `episode`, stored as `episode.judge`. */
  judgeResult?(episode: Episode): JudgeResult | undefined;
}

/**
 * How a count of bad turns becomes a penalty: `any` → -penalty once if any turn is bad;
 * `fraction` → -penalty × bad / turns; `count` → -penalty × bad.
 */
export const penaltyModeSchema = z.enum(['any', 'fraction', 'count']);
export type PenaltyMode = z.infer<typeof penaltyModeSchema>;

export const penaltyOptionsSchema = z.object({
  /** Size of the penalty (positive; the component is ≤ 0). */
  penalty: z.number().nonnegative().default(1),
  mode: penaltyModeSchema.default('fraction'),
});
export type PenaltyOptions = z.input<typeof penaltyOptionsSchema>;

export function penaltyFor(
  options: z.output<typeof penaltyOptionsSchema>,
  bad: number,
  turns: number,
): number {
  if (bad === 0) return 0;
  if (options.mode === 'any') return -options.penalty;
  if (options.mode === 'count') return -options.penalty * bad;
  return (-options.penalty * bad) / Math.max(1, turns);
}

/** Actions the env carried out, in order. */
export function executedActions(episode: Episode): string[] {
  return episode.turns.flatMap((turn) => (turn.action !== null && turn.valid ? [turn.action] : []));
}

export function requireTurns(episode: Episode, computed: readonly RewardComponents[], name: string) {
  if (computed.length !== episode.turns.length) {
    throw new InvalidArgumentError(
      `Reward ${name} returned ${computed.length} per-turn records for episode ${episode.id} with ${episode.turns.length} turns`,
    );
  }
}
