// Turn-level credit assignment for multi-turn episodes, in the style of GiGPO (Feng et al., 2025).
// Episode level: GRPO's relative advantage of the episode reward within its group. Step level:
// the turns of a group that start from the same environment state (same observation and same
// admissible actions, normalised) form a step group; each turn's discounted return is compared
// with the others of its step group. A turn's return discounts the rewards from that turn on: the
// turns' own rewards where the episode credits them per turn (a plan step passed, a loop), else the
// episode reward arriving at the final turn. A turn's tokens get episode + stepWeight × step
// advantage, so a decisive action is credited apart from the many routine turns around it.
import { mean, parseOrThrow, sampleStd, turnStateKey } from '@pilotrl/core';
import { z } from 'zod';
import {
  type AdvantageEstimator,
  broadcastToTokens,
  episodeRewards,
  groupIndices,
  type TokenTable,
  turnRewardTable,
} from './advantage';

export { turnStateKey };

export const turnLevelArgsSchema = z.strictObject({
  /** Weight ω of the step-level advantage added to the episode-level one. */
  stepWeight: z.number().min(0).default(1),
  /** Discount per turn of later rewards when computing a turn's return. */
  gamma: z.number().min(0).max(1).default(0.95),
  /** Divide both levels by their group's sample standard deviation. */
  normalizeStd: z.boolean().default(true),
  /** Added to standard deviations. */
  eps: z.number().positive().default(1e-6),
});
export type TurnLevelArgs = z.input<typeof turnLevelArgsSchema>;

export function turnLevel(args: TurnLevelArgs = {}): AdvantageEstimator {
  const { stepWeight, gamma, normalizeStd, eps } = parseOrThrow(
    turnLevelArgsSchema,
    args,
    'turn-level arguments',
  );
  const relative = (values: readonly number[]): number[] => {
    const center = mean(values);
    const scale = normalizeStd ? sampleStd(values) + eps : 1;
    return values.map((value) => (value - center) / scale);
  };
  return {
    name: 'turn-level',
    needsValues: false,
    estimate({ episodes }) {
      const rewards = episodeRewards(episodes);
      const turnReturns = turnRewardTable(episodes).map((perTurn) => discountedReturns(perTurn, gamma));
      const episodeAdvantage = new Array<number>(episodes.length).fill(0);
      // stepAdvantage[e][turn]
      const stepAdvantage = episodes.map((episode) => new Array<number>(episode.turns.length).fill(0));
      for (const members of groupIndices(episodes)) {
        relative(members.map((index) => rewards[index]!)).forEach((advantage, k) => {
          episodeAdvantage[members[k]!] = advantage;
        });
        const stepGroups = new Map<string, { episode: number; turn: number; return: number }[]>();
        for (const e of members) {
          episodes[e]!.turns.forEach((turn, t) => {
            const key = turnStateKey(turn);
            const entry = { episode: e, turn: t, return: turnReturns[e]![t]! };
            const stepGroup = stepGroups.get(key);
            if (stepGroup === undefined) stepGroups.set(key, [entry]);
            else stepGroup.push(entry);
          });
        }
        for (const stepGroup of stepGroups.values()) {
          if (stepGroup.length < 2) continue;
          relative(stepGroup.map((entry) => entry.return)).forEach((advantage, k) => {
            const { episode, turn } = stepGroup[k]!;
            stepAdvantage[episode]![turn] = advantage;
          });
        }
      }
      const advantages: TokenTable = episodes.map((episode, e) =>
        episode.turns.flatMap((turn, t) =>
          broadcastToTokens(turn.generations, episodeAdvantage[e]! + stepWeight * stepAdvantage[e]![t]!),
        ),
      );
      return { advantages };
    },
  };
}

/** Per turn, the discounted sum of the rewards from that turn to the end. */
function discountedReturns(rewards: readonly number[], gamma: number): number[] {
  const returns = new Array<number>(rewards.length).fill(0);
  let running = 0;
  for (let t = rewards.length - 1; t >= 0; t--) {
    running = rewards[t]! + gamma * running;
    returns[t] = running;
  }
  return returns;
}
