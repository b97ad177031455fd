// Format reward: penalises turns whose model output could not be parsed (`turn.formatError`).
import { type Episode, parseOrThrow } from '@pilotrl/core';
import { type EpisodeRewardFn, type PenaltyOptions, penaltyFor, penaltyOptionsSchema } from './reward-fn';

/** Component `format` (≤ 0) from the turns with a format error; per turn, -penalty on each such turn. */
export function createFormatReward(options: PenaltyOptions = {}): EpisodeRewardFn {
  const config = parseOrThrow(penaltyOptionsSchema, options, 'format reward options');
  const bad = (episode: Episode) => episode.turns.filter((turn) => turn.formatError !== null).length;
  return {
    name: 'format',
    compute: (episode) => ({ format: penaltyFor(config, bad(episode), episode.turns.length) }),
    computeTurns: (episode) =>
      episode.turns.map((turn) => ({ format: turn.formatError === null ? 0 : -config.penalty })),
  };
}
