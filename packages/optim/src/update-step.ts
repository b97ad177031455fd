// One policy update from a batch of episodes, over core's TrainablePolicy: drop zero-variance
// groups (counted), build one datum per generation (model tokens weighted, prompt and env tokens
// not), take old logprobs from a forward pass or from the sampler, estimate advantages, then run
// several epochs of shuffled minibatches, each one `forwardBackward` + `optimStep`.
import {
  adamParamsSchema,
  createRng,
  type Datum,
  datumSchema,
  type Episode,
  episodeSchema,
  InvalidArgumentError,
  type LossFn,
  mean,
  parseOrThrow,
  type TrainablePolicy,
} from '@pilotrl/core';
import { z } from 'zod';
import { episodeGenerations, episodeRewards, groupIndices, type TokenTable } from './advantage';
import { aggregationSchema, aggregationWeights } from './aggregation';
import { explainedVariance } from './explained-variance';
import { advantageEstimators, policyLosses } from './registries';

export const updateConfigSchema = z.strictObject({
  /** Advantage estimator by registry name: grpo, rloo, reinforce++, gae, turn-level, or your own. */
  estimator: z.string().default('grpo'),
  /** Arguments of the estimator, validated by it. */
  estimatorArgs: z.record(z.string(), z.unknown()).default({}),
  /** Policy loss by registry name: ppo, importance_sampling, or your own. */
  loss: z.string().default('ppo'),
  /** Arguments of the loss, validated by it. */
  lossArgs: z.record(z.string(), z.unknown()).default({}),
  /** How token losses are averaged within a minibatch. */
  aggregation: aggregationSchema.default('token-mean'),
  /** Passes over the batch per update. */
  epochs: z.number().int().positive().default(1),
  /** Minibatches per epoch, each followed by an optimizer step. */
  minibatches: z.number().int().positive().default(1),
  /**
   * Old logprobs for the importance ratio: recomputed by a forward pass, or the sampler's. The
   * sampler's are exact, and save the forward pass, when the policy samples at temperature 1 and
   * the generations carry `allowedTokenIds` for any constrained decoding.
   */
  oldLogprobs: z.enum(['recompute', 'sampler']).default('recompute'),
  /** Leave out groups whose episodes all got the same reward (they carry no relative signal). */
  filterZeroVarianceGroups: z.boolean().default(true),
  /** Entropy bonus coefficient, passed to the policy's forwardBackward. */
  entropyCoef: z.number().min(0).default(0),
  /** Value-loss coefficient, used when the estimator needs a value head. */
  valueCoef: z.number().min(0).default(0.5),
  /**
   * Weight of a cross-entropy anchor on demonstrations (`options.anchor`, token-mean), added to
   * every optimizer step so RL cannot drift far from what supervised training taught; 0 disables.
   */
  anchorCoef: z.number().min(0).default(0),
  /** Adam settings for every optimizer step, gradient clipping included (`gradClipNorm`). */
  adam: adamParamsSchema,
  /** Seed of the minibatch shuffling (combined with the policy version). */
  seed: z.number().int().nonnegative().default(0),
});
export type UpdateConfig = z.input<typeof updateConfigSchema>;

export interface UpdateOptions {
  /** A frozen reference policy; needed when the loss has a KL term. */
  reference?: TrainablePolicy;
  /** Demonstration datums (weights > 0 on the tokens to imitate) for the anchor; needs `anchorCoef` > 0. */
  anchor?: readonly Datum[];
}

export interface UpdateResult {
  /** False when nothing was left to train on (every group had zero variance). */
  updated: boolean;
  /** Metrics under standard names (`losses/…`, `charts/…`). */
  metrics: Record<string, number>;
}

export type UpdateStep = (
  policy: TrainablePolicy,
  episodes: readonly Episode[],
  options?: UpdateOptions,
) => Promise<UpdateResult>;

/** Validates `config` once and returns the update function. */
export function createUpdateStep(config: UpdateConfig): UpdateStep {
  const cfg = parseOrThrow(updateConfigSchema, config, 'update config');
  const estimator = advantageEstimators.get(cfg.estimator).create(cfg.estimatorArgs);
  const lossFn = policyLosses.get(cfg.loss)(cfg.lossArgs);

  return async (policy, episodes, options = {}) => {
    // Validated here, but the originals are used so that datums share the episodes' token arrays.
    parseOrThrow(z.array(episodeSchema), episodes, 'episodes');
    if (options.anchor !== undefined) parseOrThrow(z.array(datumSchema), options.anchor, 'anchor datums');
    const anchor = anchorDatums(options.anchor, cfg.anchorCoef);
    const rewards = episodeRewards(episodes);
    const groups = groupIndices(episodes);
    const zeroVariance = groups.filter(
      (members) => members.length > 1 && members.every((index) => rewards[index] === rewards[members[0]!]),
    );
    const dropped = new Set(cfg.filterZeroVarianceGroups ? zeroVariance.flat() : []);
    const kept = episodes.filter((_, index) => !dropped.has(index));
    const metrics: Record<string, number> = {
      'charts/reward_mean': mean(rewards),
      'charts/groups': groups.length,
      'charts/zero_variance_groups': zeroVariance.length,
      'charts/filtered_episodes': dropped.size,
    };

    const { datums, slots } = buildDatums(kept);
    metrics['charts/datums'] = datums.length;
    if (datums.length === 0) return { updated: false, metrics };

    const needForward = cfg.oldLogprobs === 'recompute' || estimator.needsValues;
    const forward = needForward ? await policy.forward(datums) : undefined;
    const oldLogprobs =
      forward !== undefined && cfg.oldLogprobs === 'recompute'
        ? forward.map((result) => result.logprobs)
        : slots.map(({ episode, generation }) => episodeGenerations(kept[episode]!)[generation]!.logprobs);
    const referenceLogprobs = options.reference
      ? (await options.reference.forward(datums)).map((result) => result.logprobs)
      : undefined;

    let values: TokenTable | undefined;
    if (estimator.needsValues) {
      values = kept.map((episode) =>
        episodeGenerations(episode).map((g) => new Array<number>(g.tokenIds.length).fill(0)),
      );
      forward!.forEach((result, d) => {
        if (result.values === undefined) {
          throw new InvalidArgumentError(
            `estimator "${estimator.name}" needs values, but policy "${policy.name}" has no value head`,
          );
        }
        values![slots[d]!.episode]![slots[d]!.generation] = result.values;
      });
    }
    const { advantages, returns } = estimator.estimate({ episodes: kept, ...(values ? { values } : {}) });
    if (values !== undefined && returns !== undefined) {
      // Measured before this update moves the value head: how well it predicted these returns.
      const explained = explainedVariance(kept, values, returns);
      if (Number.isFinite(explained)) metrics['losses/explained_variance'] = explained;
    }
    const trainDatums: Datum[] = datums.map((datum, d) => {
      const { episode, generation } = slots[d]!;
      return {
        ...datum,
        samplerLogprobs: oldLogprobs[d]!,
        advantages: advantages[episode]![generation]!,
        ...(returns ? { returns: returns[episode]![generation]! } : {}),
        ...(referenceLogprobs ? { referenceLogprobs: referenceLogprobs[d]! } : {}),
      };
    });
    Object.assign(
      metrics,
      tokenStatistics(
        trainDatums,
        forward?.every((result) => result.entropies !== undefined)
          ? forward.map((result) => result.entropies!)
          : undefined,
      ),
    );

    // The loss's own metrics are captured here so they do not depend on what the policy reports.
    const lossMetrics: Record<string, number>[] = [];
    const capturingLoss: LossFn = (input) => {
      const output = lossFn(input);
      lossMetrics.push(output.metrics ?? {});
      return output;
    };
    const policyMetrics: Record<string, number>[] = [];
    const gradNorms: number[] = [];
    const losses: number[] = [];
    const anchorLosses: number[] = [];
    const rng = createRng(`${cfg.seed}/${policy.version}`);
    const minibatchCount = Math.min(cfg.minibatches, trainDatums.length);
    for (let epoch = 0; epoch < cfg.epochs; epoch++) {
      const order = rng.shuffle(trainDatums.map((_, index) => index));
      for (let m = 0; m < minibatchCount; m++) {
        const start = Math.floor((m * order.length) / minibatchCount);
        const end = Math.floor(((m + 1) * order.length) / minibatchCount);
        const minibatch = order.slice(start, end).map((index) => trainDatums[index]!);
        const weights = aggregationWeights(
          minibatch.map((datum) => datum.weights),
          cfg.aggregation,
        );
        const result = await policy.forwardBackward(
          minibatch.map((datum, i) => ({ ...datum, weights: weights[i]! })),
          capturingLoss,
          { entropyCoef: cfg.entropyCoef, valueCoef: estimator.needsValues ? cfg.valueCoef : 0 },
        );
        losses.push(result.loss);
        policyMetrics.push(namespacePolicyMetrics(result.metrics));
        if (anchor.length > 0) {
          const anchored = await policy.forwardBackward(anchor, 'cross_entropy');
          anchorLosses.push(anchored.loss / cfg.anchorCoef);
        }
        gradNorms.push((await policy.optimStep(cfg.adam)).gradNorm);
      }
    }
    Object.assign(metrics, averageMetrics(policyMetrics), averageMetrics(lossMetrics), {
      'losses/loss': mean(losses),
      'losses/grad_norm': mean(gradNorms),
      'charts/optimizer_steps': gradNorms.length,
      ...(anchor.length > 0 ? { 'losses/anchor_loss': mean(anchorLosses) } : {}),
      'charts/policy_version': policy.version,
    });
    return { updated: true, metrics };
  };
}

/** The anchor demonstrations weighted for a token-mean cross-entropy times `coef`. */
function anchorDatums(anchor: readonly Datum[] | undefined, coef: number): Datum[] {
  if (anchor === undefined || anchor.length === 0) {
    if (coef > 0) {
      throw new InvalidArgumentError(
        `anchorCoef is ${coef} but no anchor demonstrations were passed; pass { anchor: datums } or set anchorCoef to 0`,
      );
    }
    return [];
  }
  if (coef === 0) {
    throw new InvalidArgumentError(
      'anchor demonstrations were passed but anchorCoef is 0; set anchorCoef > 0',
    );
  }
  const weights = aggregationWeights(
    anchor.map((datum) => datum.weights),
    'token-mean',
  );
  return anchor.map((datum, d) => ({
    tokenIds: datum.tokenIds,
    weights: weights[d]!.map((w, t) => w * coef * datum.weights[t]!),
  }));
}

/** One datum per generation that has model tokens; `slots` says where each came from. */
function buildDatums(episodes: readonly Episode[]): {
  datums: Datum[];
  slots: { episode: number; generation: number }[];
} {
  const datums: Datum[] = [];
  const slots: { episode: number; generation: number }[] = [];
  episodes.forEach((episode, e) => {
    episodeGenerations(episode).forEach((generation, g) => {
      if (!generation.lossMask.includes(1)) return;
      if (generation.lossMask[0] === 1 || generation.tokenIds.length < 2) {
        throw new InvalidArgumentError(
          `Episode "${episode.id}", generation ${g}: the first token is a model token, so it has no prefix to be predicted from; render at least one prompt token before the completion`,
        );
      }
      datums.push({
        tokenIds: generation.tokenIds,
        weights: [...generation.lossMask],
        ...(generation.allowedTokenIds !== undefined ? { allowedTokenIds: generation.allowedTokenIds } : {}),
      });
      slots.push({ episode: e, generation: g });
    });
  });
  return { datums, slots };
}

/** Advantage and entropy statistics over model tokens (weights > 0). */
function tokenStatistics(
  datums: readonly Datum[],
  entropies?: readonly (readonly number[])[],
): Record<string, number> {
  const advantages: number[] = [];
  const tokenEntropies: number[] = [];
  datums.forEach((datum, d) => {
    datum.weights.forEach((weight, t) => {
      if (weight === 0) return;
      advantages.push(datum.advantages![t]!);
      if (entropies) tokenEntropies.push(entropies[d]![t]!);
    });
  });
  const center = mean(advantages);
  const statistics: Record<string, number> = {
    'charts/advantage_mean': center,
    'charts/advantage_std': Math.sqrt(mean(advantages.map((a) => (a - center) ** 2))),
    'charts/model_tokens': advantages.length,
  };
  if (entropies) statistics['losses/entropy'] = mean(tokenEntropies);
  return statistics;
}

/**
 * The policy's own metrics under `policy/…`, except the value loss, which has a standard name.
 * Names that already have a namespace are the loss function's, captured separately.
 */
function namespacePolicyMetrics(metrics: Record<string, number>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(metrics)
      .filter(([key]) => !key.includes('/'))
      .map(([key, value]) => [key === 'value_loss' ? 'losses/value_loss' : `policy/${key}`, value]),
  );
}

/** The mean of each metric over the records that report it. */
function averageMetrics(records: readonly Record<string, number>[]): Record<string, number> {
  const sums = new Map<string, number[]>();
  for (const record of records) {
    for (const [key, value] of Object.entries(record)) {
      const list = sums.get(key);
      if (list === undefined) sums.set(key, [value]);
      else list.push(value);
    }
  }
  return Object.fromEntries([...sums].map(([key, list]) => [key, mean(list)]));
}
