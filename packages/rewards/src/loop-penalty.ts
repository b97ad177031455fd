// Loop penalty: costs each turn that plays a command the episode already played from the same
// state. "State" is what the agent was shown before acting: the observation and the admissible
// commands (core's `turnStateKey`, also the state of turn-level credit assignment), so going back and
// forth between two places costs once the places look as they did, while the same command where
// something changed (another "look" after the room changed) costs nothing.
import { type Episode, parseOrThrow, turnStateKey } from '@pilotrl/core';
import { z } from 'zod';
import type { EpisodeRewardFn } from './reward-fn';

export const loopPenaltyOptionsSchema = z.object({
  /** Size of the penalty per looping turn (positive; the component is ≤ 0). */
  penalty: z.number().nonnegative().default(0.1),
});

const normalise = (action: string) => action.trim().replace(/\s+/g, ' ').toLowerCase();

/** Per turn: whether its command was played before in the episode from the same state. */
export function loopingTurns(episode: Episode): boolean[] {
  const seen = new Set<string>();
  return episode.turns.map((turn) => {
    if (turn.action === null) return false;
    const key = `${turnStateKey(turn)}\u0002${normalise(turn.action)}`;
    const looped = seen.has(key);
    seen.add(key);
    return looped;
  });
}

/**
 * Component `loop_penalty` (per turn, credited to turns): −penalty for each turn whose command
 * (compared without regard to case and spacing) was played from the same state before; turns
 * without a command never loop.
 */
export function createLoopPenalty(options: z.input<typeof loopPenaltyOptionsSchema> = {}): EpisodeRewardFn {
  const { penalty } = parseOrThrow(loopPenaltyOptionsSchema, options, 'loop_penalty options');
  return {
    name: 'loop_penalty',
    creditsTurns: true,
    compute: (episode) => ({ loop_penalty: -penalty * loopingTurns(episode).filter(Boolean).length }),
    computeTurns: (episode) =>
      loopingTurns(episode).map((looped) => ({ loop_penalty: looped ? -penalty : 0 })),
  };
}
