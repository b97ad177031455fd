// Weighted composition of reward functions. Every component any function returns is written into
// `episode.rewardComponents` under its own name; the scalar `reward` is the weighted sum of the
// components that have weights. Per-turn components and judge verdicts are written too. When a
// function credits its components to turns (`creditsTurns`), the reward is also split over the
// turns (`turn.reward`): those components where they were earned, every other weighted component
// (the outcome, a judge's score) at the final turn, so the shares sum to `reward`.
import {
  type Episode,
  InvalidArgumentError,
  judgeResultSchema,
  parseOrThrow,
  type RewardComponents,
  type RewardFn,
  rewardComponentsSchema,
} from '@pilotrl/core';
import { z } from 'zod';
import { type EpisodeRewardFn, requireTurns } from './reward-fn';

const finiteWeight = z
  .number({ error: 'must be a finite number' })
  .refine(Number.isFinite, 'must be a finite number');
const weightRecordSchema = z.record(z.string(), finiteWeight);

export interface WeightedReward {
  fn: RewardFn | EpisodeRewardFn;
  /**
   * A number weighs the component named like the function (`fn.name`); a record weighs the named
   * components. Components without a weight are recorded but not summed. Weight 0 masks one out.
   */
  weight: number | Record<string, number>;
}

export interface ComposedReward extends RewardFn {
  /** All component names, after `compute` has run once; the weighted ones in `weights`. */
  readonly weights: Readonly<Record<string, number>>;
  /** A copy of `episode` with components, per-turn rewards, `judge` and `reward` written. */
  apply(episode: Episode): Promise<Episode>;
  applyAll(episodes: readonly Episode[]): Promise<Episode[]>;
}

export function composeRewards(
  entries: readonly WeightedReward[],
  options: { name?: string } = {},
): ComposedReward {
  if (entries.length === 0)
    throw new InvalidArgumentError('composeRewards needs at least one { fn, weight }');
  const weights: Record<string, number> = {};
  entries.forEach(({ fn, weight }, index) => {
    const what = `weight of reward ${index} (${fn.name})`;
    const named =
      typeof weight === 'number' || typeof weight !== 'object'
        ? { [fn.name]: parseOrThrow(finiteWeight, weight, what) }
        : parseOrThrow(weightRecordSchema, weight, what);
    for (const [component, value] of Object.entries(named)) {
      if (component in weights) {
        throw new InvalidArgumentError(
          `Component "${component}" is weighted twice in composeRewards; weigh it once`,
        );
      }
      weights[component] = value;
    }
  });

  async function computeAll(episode: Episode) {
    const components: RewardComponents = {};
    const owner: Record<string, string> = {};
    const perFn = await Promise.all(entries.map(({ fn }) => Promise.resolve(fn.compute(episode))));
    entries.forEach(({ fn }, index) => {
      const returned = parseOrThrow(
        rewardComponentsSchema,
        perFn[index],
        `components of reward ${fn.name} for episode ${episode.id}`,
      );
      for (const [component, value] of Object.entries(returned)) {
        if (component in owner) {
          throw new InvalidArgumentError(
            `Rewards ${owner[component]} and ${fn.name} both write component "${component}"; rename one`,
          );
        }
        owner[component] = fn.name;
        components[component] = value;
      }
    });
    for (const component of Object.keys(weights)) {
      if (!(component in components)) {
        throw new InvalidArgumentError(
          `Weighted component "${component}" was not returned by any reward for episode ${episode.id}; returned: ${Object.keys(components).join(', ')}`,
        );
      }
    }
    return components;
  }

  return {
    name: options.name ?? 'composed',
    weights,
    compute: computeAll,
    async apply(episode) {
      const components = await computeAll(episode);
      const reward = Object.entries(weights).reduce(
        (sum, [component, weight]) => sum + weight * components[component]!,
        0,
      );
      const turnRecords = episode.turns.map((turn) => ({ ...turn.rewards }));
      // Weighted sum per turn of the components credited to turns; undefined when none is.
      let credited: number[] | undefined;
      const creditedComponents = new Set<string>();
      let judge = episode.judge;
      for (const { fn } of entries) {
        const rich = fn as EpisodeRewardFn;
        if (rich.computeTurns) {
          const perTurn = rich
            .computeTurns(episode)
            .map((record, index) =>
              parseOrThrow(
                rewardComponentsSchema,
                record,
                `turn ${index} components of reward ${fn.name} for episode ${episode.id}`,
              ),
            );
          requireTurns(episode, perTurn, fn.name);
          for (const [index, record] of perTurn.entries()) Object.assign(turnRecords[index]!, record);
          if (rich.creditsTurns && episode.turns.length > 0) {
            credited ??= new Array<number>(episode.turns.length).fill(0);
            for (const component of ownComponents(components, perTurn, fn.name, episode.id)) {
              creditedComponents.add(component);
              const weight = weights[component];
              if (weight === undefined) continue;
              perTurn.forEach((record, index) => {
                credited![index]! += weight * (record[component] ?? 0);
              });
            }
          }
        }
        const verdict = rich.judgeResult?.(episode);
        if (verdict !== undefined)
          judge = parseOrThrow(judgeResultSchema, verdict, `judge verdict of reward ${fn.name}`);
      }
      if (credited !== undefined) {
        // Whatever is not credited to a turn arrives with the episode's end.
        credited[credited.length - 1]! += Object.entries(weights)
          .filter(([component]) => !creditedComponents.has(component))
          .reduce((sum, [component, weight]) => sum + weight * components[component]!, 0);
      }
      // Every value written here was validated above; the rest of the record is the caller's.
      return {
        ...episode,
        // A share from an earlier composition would no longer sum to this `reward`: it is replaced or dropped.
        turns: episode.turns.map(({ reward: _earlier, ...turn }, index) => ({
          ...turn,
          rewards: turnRecords[index]!,
          ...(credited === undefined ? {} : { reward: credited[index]! }),
        })),
        rewardComponents: { ...episode.rewardComponents, ...components },
        reward,
        ...(judge === undefined ? {} : { judge }),
      };
    },
    applyAll(episodes) {
      return Promise.all(episodes.map((episode) => this.apply(episode)));
    },
  };
}

/**
 * The components a turn-crediting function earns turn by turn, each checked to be the sum of its
 * per-turn values (within floating-point rounding), since the turns' shares must add up to `reward`.
 */
function ownComponents(
  components: RewardComponents,
  perTurn: readonly RewardComponents[],
  name: string,
  episodeId: string,
): string[] {
  const names = [...new Set(perTurn.flatMap((record) => Object.keys(record)))];
  for (const component of names) {
    const total = perTurn.reduce((sum, record) => sum + (record[component] ?? 0), 0);
    const value = components[component];
    if (value === undefined || Math.abs(total - value) > 1e-9 * Math.max(1, Math.abs(value))) {
      throw new InvalidArgumentError(
        `Reward ${name} credits "${component}" to turns, but its per-turn values sum to ${total} and the episode's is ${value} (episode ${episodeId}); a turn-crediting reward's components must be the sums of its per-turn values`,
      );
    }
  }
  return names;
}
