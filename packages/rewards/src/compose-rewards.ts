// Weighted composition of reward functions. Every component any function returns is written into
// `episode.rewardComponents` under its own name; the scalar `reward` is the weighted sum of the
// components that have weights. Per-turn components and judge verdicts are written too.
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
      const turnRewards = episode.turns.map((turn) => ({ ...turn.rewards }));
      let judge = episode.judge;
      for (const { fn } of entries) {
        const rich = fn as EpisodeRewardFn;
        if (rich.computeTurns) {
          const perTurn = rich.computeTurns(episode);
          requireTurns(episode, perTurn, fn.name);
          for (const [index, record] of perTurn.entries()) {
            const what = `turn ${index} components of reward ${fn.name} for episode ${episode.id}`;
            Object.assign(turnRewards[index]!, parseOrThrow(rewardComponentsSchema, record, what));
          }
        }
        const verdict = rich.judgeResult?.(episode);
        if (verdict !== undefined)
          judge = parseOrThrow(judgeResultSchema, verdict, `judge verdict of reward ${fn.name}`);
      }
      // Every value written here was validated above; the rest of the record is the caller's.
      return {
        ...episode,
        turns: episode.turns.map((turn, index) => ({ ...turn, rewards: turnRewards[index]! })),
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
