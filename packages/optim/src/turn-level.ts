// Turn-level credit assignment for multi-turn episodes, in the style of GiGPO (Feng et al., 2025).
// Episode level: GRPO's relative advantage of the episode reward within its group. Step level:
// the turns of a group that start from the same environment state (same observation and same
// admissible actions, normalised) form a step group; each turn's discounted return is compared
// with the others of its step group. A turn's tokens get episode + stepWeight × step advantage,
// so a decisive action is credited apart from the many routine turns around it.
import { mean, parseOrThrow, sampleStd, type Turn } from '@pilotrl/core';
import { z } from 'zod';
import {
  type AdvantageEstimator,
  broadcastToTokens,
  episodeRewards,
  groupIndices,
  type TokenTable,
} from './advantage';

export const turnLevelArgsSchema = z.strictObject({
  /** Weight ω of the step-level advantage added to the episode-level one. */
  stepWeight: z.number().min(0).default(1),
  /** Discount per turn of the episode reward when computing a turn's return. */
  gamma: z.number().min(0).max(1).default(0.95),
  /** Divide both levels by their group's sample standard deviation. */
  normalizeStd: z.boolean().default(true),
  /** Added to standard deviations. */
  eps: z.number().positive().default(1e-6),
});
export type TurnLevelArgs = z.input<typeof turnLevelArgsSchema>;

/** The key of the environment state a turn starts from: whitespace- and case-insensitive. */
export function turnStateKey(turn: Pick<Turn, 'observation' | 'admissibleActions'>): string {
  const normalize = (text: string) => text.trim().replace(/\s+/g, ' ').toLowerCase();
  const actions = turn.admissibleActions.map(normalize).sort();
  return `${normalize(turn.observation)}\u0000${actions.join('\u0001')}`;
}

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
      const episodeAdvantage = new Array<number>(episodes.length).fill(0);
      // stepAdvantage[e][turn]
      const stepAdvantage = episodes.map((episode) => new Array<number>(episode.turns.length).fill(0));
      for (const members of groupIndices(episodes)) {
        relative(members.map((index) => rewards[index]!)).forEach((advantage, k) => {
          episodeAdvantage[members[k]!] = advantage;
        });
        const stepGroups = new Map<string, { episode: number; turn: number; return: number }[]>();
        for (const e of members) {
          const turns = episodes[e]!.turns;
          turns.forEach((turn, t) => {
            const key = turnStateKey(turn);
            const entry = { episode: e, turn: t, return: gamma ** (turns.length - 1 - t) * rewards[e]! };
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
