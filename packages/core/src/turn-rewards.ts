// Rewards credited per turn: the shares of an episode's scalar reward that its turns carry, and
// the key of the state a turn starts from (what "the same state" means for loops and step groups).
import type { Episode, Turn } from './episode';
import { InvalidArgumentError } from './errors';

/** How far the turn shares may drift from the episode's reward through floating-point sums. */
const SUM_TOLERANCE = 1e-9;

/**
 * Each turn's share of `episode.reward`, or undefined when the reward is not credited per turn
 * (no turn has a share). A partial or inconsistent table is an error: every turn needs a share
 * and the shares must sum to the reward, since estimators read one or the other.
 */
export function turnRewards(episode: Episode): number[] | undefined {
  const credited = episode.turns.filter((turn) => turn.reward !== undefined).length;
  if (credited === 0) return undefined;
  if (credited < episode.turns.length) {
    throw new InvalidArgumentError(
      `Episode "${episode.id}" credits rewards to ${credited} of its ${episode.turns.length} turns; credit every turn or none`,
    );
  }
  const shares = episode.turns.map((turn) => turn.reward!);
  const sum = shares.reduce((total, share) => total + share, 0);
  const reward = episode.reward;
  if (reward === undefined || Math.abs(sum - reward) > SUM_TOLERANCE * Math.max(1, Math.abs(reward))) {
    throw new InvalidArgumentError(
      `Episode "${episode.id}" has turn rewards summing to ${sum} but reward ${reward}; set both with the same reward composition`,
    );
  }
  return shares;
}

/**
 * The key of the env state a turn starts from: its observation and admissible commands, compared
 * without regard to case, spacing or the order of the commands.
 */
export function turnStateKey(turn: Pick<Turn, 'observation' | 'admissibleActions'>): string {
  const normalize = (text: string) => text.trim().replace(/\s+/g, ' ').toLowerCase();
  const actions = turn.admissibleActions.map(normalize).sort();
  return `${normalize(turn.observation)}\u0000${actions.join('\u0001')}`;
}
