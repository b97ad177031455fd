import { InvalidArgumentError } from '@pilotrl/core';
import { describe, expect, it } from 'vitest';
import { BANDIT_VOCABULARY, playBandit } from '../test/bandit';
import { episode } from '../test/episodes';
import { createTabularPolicy } from '../test/tabular-policy';
import { pilotrlReference } from './presets';
import { createUpdateStep } from './update-step';

const adam = { learningRate: 0.1, gradClipNorm: 1 };
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
    const update = createUpdateStep({ ...pilotrlReference.update, adam });
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

  it('rejects a bad config and a generation without a prompt token', async () => {
    expect(() => createUpdateStep({ adam, epochs: 0 })).toThrow(/epochs/);
    expect(() => createUpdateStep({ adam, estimator: 'ppo2' })).toThrow(/Known: gae, grpo/);
    const policy = createTabularPolicy(BANDIT_VOCABULARY);
    const bad = [episode('a', 'g', 1, [{ masks: [[1, 1]] }]), episode('b', 'g', 0, [{ masks: [[1, 1]] }])];
    await expect(createUpdateStep({ adam })(policy, bad)).rejects.toThrow(InvalidArgumentError);
  });
});
