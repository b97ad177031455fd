import { type Datum, InvalidArgumentError } from '@pilotrl/core';
import { CORRIDOR_ENV_ID, corridorTasks, createCorridorEnv } from '@pilotrl/env-testkit';
import { TfjsPolicy, Tokenizer } from '@pilotrl/policy-tfjs';
import { describe, expect, it } from 'vitest';
import { BANDIT_VOCABULARY, playBandit } from '../test/bandit';
import { episode } from '../test/episodes';
import { playChoices } from '../test/play-choices';
import { createTabularPolicy } from '../test/tabular-policy';
import { policyLosses } from './registries';
import { createUpdateStep } from './update-step';

const adam = { learningRate: 0.1, gradClipNorm: 1 };
/** GRPO with std normalisation, PPO clip 0.2 with dual-clip 3, no KL, token-mean. */
const grpoDualClip = {
  estimator: 'grpo',
  estimatorArgs: { normalizeStd: true },
  loss: 'ppo',
  lossArgs: { clipLow: 0.2, clipHigh: 0.2, dualClip: 3, klCoef: 0 },
  aggregation: 'token-mean',
  filterZeroVarianceGroups: true,
} as const;
const id = (word: string) => BANDIT_VOCABULARY.indexOf(word);
const probability = (logits: number[][], previous: string, next: string) => {
  const row = logits[id(previous)]!;
  const total = row.reduce((sum, value) => sum + Math.exp(value), 0);
  return Math.exp(row[id(next)]!) / total;
};

describe('the update step', () => {
  it('moves probability towards rewarded tokens and leaves env-token predictions untouched', async () => {
    const policy = createTabularPolicy(BANDIT_VOCABULARY);
    const episodes = await playBandit(policy, { groups: 4, groupSize: 8, seed: 1 });
    const update = createUpdateStep({ ...grpoDualClip, adam });
    const before = probability(policy.logits, 'start', 'right');
    const { updated, metrics } = await update(policy, episodes);
    expect(updated).toBe(true);
    expect(probability(policy.logits, 'start', 'right')).toBeGreaterThan(before);
    // `wall` and `door` follow a model token but are env tokens: the rows that predict them
    // (after `left`/`right` in turn 0) would only change if env tokens leaked into the loss.
    // Row `left` also predicts nothing else, so it must stay exactly zero.
    expect(policy.logits[id('left')]!.every((value) => value === 0)).toBe(true);
    expect(policy.logits[id('right')]!.every((value) => value === 0)).toBe(true);
    expect(policy.version).toBe(1);
    for (const name of [
      'losses/policy_loss',
      'losses/approx_kl',
      'losses/clipfrac',
      'losses/entropy',
      'losses/grad_norm',
      'charts/advantage_mean',
      'charts/zero_variance_groups',
    ]) {
      expect(metrics[name], name).toBeTypeOf('number');
    }
    // The untrained policy is uniform over the 5 words.
    expect(metrics['losses/entropy']).toBeCloseTo(Math.log(5), 6);
  });

  it('counts zero-variance groups and leaves them out of the batch', async () => {
    const policy = createTabularPolicy(BANDIT_VOCABULARY);
    const mask: (0 | 1)[] = [0, 1];
    const episodes = [
      episode('a', 'same', 1, [{ masks: [mask] }]),
      episode('b', 'same', 1, [{ masks: [mask] }]),
      episode('c', 'mixed', 1, [{ masks: [mask] }]),
      episode('d', 'mixed', 0, [{ masks: [mask] }]),
    ];
    const update = createUpdateStep({ adam });
    const { metrics } = await update(policy, episodes);
    expect(metrics['charts/zero_variance_groups']).toBe(1);
    expect(metrics['charts/filtered_episodes']).toBe(2);
    expect(metrics['charts/datums']).toBe(2);

    const kept = await createUpdateStep({ adam, filterZeroVarianceGroups: false })(policy, episodes);
    expect(kept.metrics['charts/zero_variance_groups']).toBe(1);
    expect(kept.metrics['charts/datums']).toBe(4);
  });

  it('skips the optimizer step when every group has zero variance', async () => {
    const policy = createTabularPolicy(BANDIT_VOCABULARY);
    const episodes = [
      episode('a', 'g', 0, [{ masks: [[0, 1]] }]),
      episode('b', 'g', 0, [{ masks: [[0, 1]] }]),
    ];
    const result = await createUpdateStep({ adam })(policy, episodes);
    expect(result.updated).toBe(false);
    expect(result.metrics['charts/zero_variance_groups']).toBe(1);
    expect(policy.version).toBe(0);
  });

  it('runs epochs × minibatches optimizer steps, and clips the ratio on later ones', async () => {
    const policy = createTabularPolicy(BANDIT_VOCABULARY);
    const episodes = await playBandit(policy, { groups: 4, groupSize: 8, seed: 2 });
    const { metrics } = await createUpdateStep({ adam: { learningRate: 0.5 }, epochs: 3, minibatches: 4 })(
      policy,
      episodes,
    );
    expect(metrics['charts/optimizer_steps']).toBe(12);
    expect(policy.version).toBe(12);
    expect(metrics['losses/approx_kl']).toBeGreaterThan(0);
    expect(metrics['losses/clipfrac']).toBeGreaterThan(0);
  });

  it('trains the value head towards the returns with gae', async () => {
    const policy = createTabularPolicy(BANDIT_VOCABULARY);
    const episodes = await playBandit(policy, { groups: 2, groupSize: 8, seed: 3 });
    const update = createUpdateStep({ estimator: 'gae', adam, valueCoef: 1 });
    await update(policy, episodes);
    // With γ = λ = 1 every return is the episode reward (0, 1 or 2), so V(start) rises from 0.
    expect(policy.values[id('start')]).toBeGreaterThan(0);
  });

  it('reports how much of the returns the value head explains, and it rises as the head trains', async () => {
    const policy = createTabularPolicy(BANDIT_VOCABULARY);
    const episodes = await playBandit(policy, { groups: 2, groupSize: 8, seed: 3 });
    const update = createUpdateStep({
      estimator: 'gae',
      adam,
      valueCoef: 1,
      filterZeroVarianceGroups: false,
    });
    const first = (await update(policy, episodes)).metrics['losses/explained_variance'];
    // An untrained head predicts 0 everywhere: the errors are the returns, nothing is explained.
    expect(first).toBe(0);
    let last = first!;
    for (let step = 0; step < 30; step++) {
      last = (await update(policy, episodes)).metrics['losses/explained_variance']!;
    }
    expect(last).toBeGreaterThan(0.2);
  });

  it('leaves out the entropy metric when the policy returns no entropies (the Tinker API)', async () => {
    const policy = createTabularPolicy(BANDIT_VOCABULARY);
    const episodes = await playBandit(policy, { groups: 2, groupSize: 8, seed: 3 });
    const forward = policy.forward.bind(policy);
    policy.forward = async (datums) =>
      (await forward(datums)).map(({ entropies: _entropies, ...rest }) => rest);
    const { updated, metrics } = await createUpdateStep({ ...grpoDualClip, adam })(policy, episodes);
    expect(updated).toBe(true);
    expect(metrics).not.toHaveProperty('losses/entropy');
    expect(Number.isFinite(metrics['charts/advantage_std'])).toBe(true);
  });

  it('reports no explained variance without a value head', async () => {
    const policy = createTabularPolicy(BANDIT_VOCABULARY);
    const episodes = await playBandit(policy, { groups: 2, groupSize: 8, seed: 3 });
    const { metrics } = await createUpdateStep({ ...grpoDualClip, adam })(policy, episodes);
    expect(metrics).not.toHaveProperty('losses/explained_variance');
  });

  it('uses a reference policy for the KL term and asks for one when it is missing', async () => {
    const policy = createTabularPolicy(BANDIT_VOCABULARY);
    const reference = createTabularPolicy(BANDIT_VOCABULARY);
    const episodes = await playBandit(policy, { groups: 2, groupSize: 4, seed: 4 });
    const update = createUpdateStep({
      adam,
      epochs: 2,
      lossArgs: { klCoef: 0.1 },
      filterZeroVarianceGroups: false,
    });
    const { metrics } = await update(policy, episodes, { reference });
    // Equal to the reference in the first epoch, away from it in the second.
    expect(metrics['losses/kl_loss']).toBeGreaterThan(0);
    await expect(update(policy, episodes)).rejects.toThrow(/no referenceLogprobs/);
  });

  it('gives the same metrics for the same seed', async () => {
    const run = async () => {
      const policy = createTabularPolicy(BANDIT_VOCABULARY);
      const update = createUpdateStep({ adam, minibatches: 2, epochs: 2, seed: 5 });
      const history = [];
      for (let iteration = 0; iteration < 3; iteration++) {
        history.push(
          (await update(policy, await playBandit(policy, { groups: 2, groupSize: 8, seed: iteration })))
            .metrics,
        );
      }
      return history;
    };
    expect(await run()).toEqual(await run());
  });

  it('hands the loss aggregation weights and the chosen old logprobs', async () => {
    const seen: Datum[][] = [];
    policyLosses.register(
      'test-recording',
      () =>
        ({ datums }) => {
          seen.push(datums.map((datum) => ({ ...datum })));
          return { loss: 0, gradLogprobs: datums.map((datum) => datum.weights.map(() => 0)) };
        },
      { replace: true },
    );
    const policy = createTabularPolicy(BANDIT_VOCABULARY);
    const episodes = await playBandit(policy, { groups: 2, groupSize: 4, seed: 6 });
    for (const aggregation of ['token-mean', 'seq-mean-token-sum'] as const) {
      seen.length = 0;
      await createUpdateStep({ adam, loss: 'test-recording', aggregation, oldLogprobs: 'sampler' })(
        policy,
        episodes,
      );
      const weights = seen[0]!.flatMap((datum) => datum.weights);
      // Every sequence has 2 model tokens: token-mean sums to 1, seq-mean-token-sum to 2.
      const sum = weights.reduce((total, w) => total + w, 0);
      expect(sum).toBeCloseTo(aggregation === 'token-mean' ? 1 : 2, 12);
      expect(weights.filter((w) => w > 0)).toHaveLength(2 * seen[0]!.length);
      // With `sampler`, the old logprobs are exactly what the sampler reported.
      const kept = episodes.filter((e) =>
        seen[0]!.some((d) => d.tokenIds === e.turns[0]!.generations[0]!.tokenIds),
      );
      expect(kept.length).toBeGreaterThan(0);
      for (const datum of seen[0]!) {
        const source = episodes.find((e) => e.turns[0]!.generations[0]!.tokenIds === datum.tokenIds)!;
        expect(datum.samplerLogprobs).toEqual(source.turns[0]!.generations[0]!.logprobs);
      }
    }
  });

  it('recomputes, for choice-constrained generations, the logprobs their sampler reported', async () => {
    const createEnv = () => createCorridorEnv({ maxSteps: 4 });
    const tasks = await corridorTasks.tasks('train', { limit: 4 });
    const first = await createEnv().reset({ seed: tasks[0]!.seed, taskId: tasks[0]!.taskId });
    const policy = await TfjsPolicy.create({
      tokenizer: Tokenizer.train([first.observation, ...first.admissibleActions], { vocabSize: 300 }),
      model: { dModel: 16, nLayers: 1, nHeads: 2, contextLength: 256, seed: 3 },
      backend: 'wasm',
    });
    const episodes = await playChoices(policy.sampler(), {
      envId: CORRIDOR_ENV_ID,
      createEnv,
      tasks,
      groupSize: 4,
      seed: 8,
      contextTokens: 256,
    });
    const seen: Datum[] = [];
    policyLosses.register(
      'test-recording',
      () =>
        ({ datums }) => {
          seen.push(...datums);
          return { loss: 0, gradLogprobs: datums.map((datum) => datum.weights.map(() => 0)) };
        },
      { replace: true },
    );
    await createUpdateStep({ adam, loss: 'test-recording', filterZeroVarianceGroups: false })(
      policy,
      episodes,
    );
    const generations = episodes.flatMap((e) => e.turns.map((turn) => turn.generations[0]!));
    expect(seen).toHaveLength(generations.length);
    for (const datum of seen) {
      const key = datum.tokenIds.join(' ');
      const generation = generations.find((g) => g.tokenIds.join(' ') === key)!;
      expect(datum.allowedTokenIds).toEqual(generation.allowedTokenIds);
      datum.weights.forEach((weight, t) => {
        if (weight > 0) expect(datum.samplerLogprobs![t]).toBeCloseTo(generation.logprobs[t]!, 4);
      });
    }
    policy.dispose();
  });

  it('anchors the policy to demonstrations with a cross-entropy term', async () => {
    const episodes = await playBandit(createTabularPolicy(BANDIT_VOCABULARY), {
      groups: 4,
      groupSize: 8,
      seed: 7,
    });
    // Rewards favour `right`; the demonstration says `left` after `start`.
    const demonstration = { tokenIds: [id('start'), id('left')], weights: [0, 1] };
    const plain = createTabularPolicy(BANDIT_VOCABULARY);
    await createUpdateStep({ adam })(plain, episodes);
    const anchored = createTabularPolicy(BANDIT_VOCABULARY);
    const { metrics } = await createUpdateStep({ adam, anchorCoef: 5 })(anchored, episodes, {
      anchor: [demonstration],
    });
    expect(probability(plain.logits, 'start', 'left')).toBeLessThan(0.2);
    expect(probability(anchored.logits, 'start', 'left')).toBeGreaterThan(0.2);
    // Uniform over 5 words before the step: -log(1/5).
    expect(metrics['losses/anchor_loss']).toBeCloseTo(Math.log(5), 6);
    await expect(createUpdateStep({ adam, anchorCoef: 1 })(plain, episodes)).rejects.toThrow(/no anchor/);
  });

  it('rejects a bad config and a generation without a prompt token', async () => {
    expect(() => createUpdateStep({ adam, epochs: 0 })).toThrow(/epochs/);
    expect(() => createUpdateStep({ adam, estimator: 'ppo2' })).toThrow(/Known: gae, grpo/);
    const policy = createTabularPolicy(BANDIT_VOCABULARY);
    const bad = [episode('a', 'g', 1, [{ masks: [[1, 1]] }]), episode('b', 'g', 0, [{ masks: [[1, 1]] }])];
    await expect(createUpdateStep({ adam })(policy, bad)).rejects.toThrow(InvalidArgumentError);
  });
});
