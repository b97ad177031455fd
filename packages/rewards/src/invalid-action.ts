// Invalid-action penalty: the output parsed, but the env refused the command (`valid: false`).
// Format errors are left to the format reward, so one bad turn is not punished twice.
import { parseOrThrow, type Turn } from '@pilotrl/core';
import { type EpisodeRewardFn, type PenaltyOptions, penaltyFor, penaltyOptionsSchema } from './reward-fn';

const isInvalid = (turn: Turn) => turn.formatError === null && turn.action !== null && !turn.valid;

/** Component `invalid_action` (≤ 0); per turn, -penalty on each refused command. */
export function createInvalidActionPenalty(options: PenaltyOptions = {}): EpisodeRewardFn {
  const config = parseOrThrow(penaltyOptionsSchema, options, 'invalid-action penalty options');
  return {
    name: 'invalid_action',
    compute: (episode) => ({
      invalid_action: penaltyFor(config, episode.turns.filter(isInvalid).length, episode.turns.length),
    }),
    computeTurns: (episode) =>
      episode.turns.map((turn) => ({ invalid_action: isInvalid(turn) ? -config.penalty : 0 })),
  };
}
