import { describe, expect, it } from 'vitest';
import { BANDIT_VOCABULARY } from '../test/bandit';
import { createTabularPolicy } from '../test/tabular-policy';
import { createExpertIteration, type SftStepFn } from './expert-iteration';
import { sftStep } from './sft-step';

const id = (word: string) => BANDIT_VOCABULARY.indexOf(word);
const datum = (next: string) => ({ tokenIds: [id('start'), id(next)], weights: [0, 1] });
const probability = (logits: number[][], next: string) => {
  const row = logits[id('start')]!;
  const total = row.reduce((sum, value) => sum + Math.exp(value), 0);
  return Math.exp(row[id(next)]!) / total;
};
const none = { own: [], hindsight: [] };

describe('expert iteration', () => {
  it('imitates the kept steps, mixed with the demonstrations in the share asked for', async () => {
    const policy = createTabularPolicy(BANDIT_VOCABULARY);
    const iteration = createExpertIteration(
      { sftSteps: 40, batchSize: 4, mix: 0.75, learningRate: 0.05 },
      sftStep,
    );
    const { metrics } = await iteration.step(policy, {
      kept: { own: [datum('right')], hindsight: [datum('door')] },
      demonstrations: [datum('left')],
    });
    expect(metrics).toMatchObject({
      'expert_iteration/kept_own': 1,
      'expert_iteration/kept_hindsight': 1,
      'expert_iteration/kept_total': 2,
    });
    const fromKept = metrics['expert_iteration/kept_batches']!;
    expect(fromKept + metrics['expert_iteration/demonstration_batches']!).toBe(40);
    expect(fromKept).toBeGreaterThan(20);
    expect(fromKept).toBeLessThan(40);
    // Kept steps drew most batches, so their replies gained most.
    expect(probability(policy.logits, 'right') + probability(policy.logits, 'door')).toBeGreaterThan(
      2 * probability(policy.logits, 'left'),
    );
    expect(probability(policy.logits, 'wall')).toBeLessThan(0.2);
    expect(policy.version).toBe(40);
  });

  it('keeps what earlier iterations kept, up to maxKept, and follows a per-step learning rate', async () => {
    const policy = createTabularPolicy(BANDIT_VOCABULARY);
    const rates: number[] = [];
    const recording: SftStepFn = (target, batch, adam) => {
      rates.push(adam.learningRate);
      return sftStep(target, batch, adam);
    };
    const iteration = createExpertIteration(
      { sftSteps: 2, batchSize: 2, mix: 1, maxKept: 3, learningRate: 0.01 },
      recording,
    );
    await iteration.step(policy, {
      kept: { own: [datum('right'), datum('right')], hindsight: [] },
      demonstrations: [],
    });
    const second = await iteration.step(policy, {
      kept: { own: [datum('door'), datum('door')], hindsight: [] },
      demonstrations: [],
    });
    expect(second.metrics['expert_iteration/kept_total']).toBe(3);
    expect(iteration.keptSteps).toBe(3);
    await iteration.step(policy, {
      kept: none,
      demonstrations: [],
      sftSteps: 3,
      learningRate: (step) => 0.1 / (step + 1),
    });
    expect(rates).toEqual([0.01, 0.01, 0.01, 0.01, 0.1, 0.05, 0.1 / 3]);
    expect(policy.version).toBe(7);
  });

  it('continues from an exported state exactly as it would have gone on', async () => {
    const settings = { sftSteps: 5, batchSize: 3, mix: 0.5, learningRate: 0.05, seed: 4 };
    const input = {
      kept: { own: [datum('right')], hindsight: [datum('door')] },
      demonstrations: [datum('left')],
    };
    const straight = createExpertIteration(settings, sftStep);
    const straightPolicy = createTabularPolicy(BANDIT_VOCABULARY);
    await straight.step(straightPolicy, input);
    const saved = JSON.parse(JSON.stringify(straight.exportState()));
    await straight.step(straightPolicy, { ...input, kept: none });

    const resumed = createExpertIteration(settings, sftStep);
    resumed.importState(saved);
    const resumedPolicy = createTabularPolicy(BANDIT_VOCABULARY);
    await createExpertIteration(settings, sftStep).step(resumedPolicy, input);
    await resumed.step(resumedPolicy, { ...input, kept: none });
    expect(resumedPolicy.logits).toEqual(straightPolicy.logits);
    expect(() => resumed.importState({ kept: [], rng: [1, 2] } as never)).toThrow(/expert iteration state/);
  });

  it('refuses to run with nothing to imitate, and rejects bad settings', async () => {
    const iteration = createExpertIteration({}, sftStep);
    await expect(
      iteration.step(createTabularPolicy(BANDIT_VOCABULARY), { kept: none, demonstrations: [] }),
    ).rejects.toThrow(/nothing to imitate/);
    expect(() => createExpertIteration({ mix: 1.5 }, sftStep)).toThrow(/mix/);
  });
});
