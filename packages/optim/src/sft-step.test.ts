// The one SFT step, on the in-process tfjs policy: token-mean cross-entropy and one AdamW step.
import { type Datum, InvalidArgumentError } from '@pilotrl/core';
import { sftDatum, TfjsPolicy, Tokenizer } from '@pilotrl/policy-tfjs';
import { describe, expect, it } from 'vitest';
import { SFT_ADAM, sftStep } from './sft-step';

const tokenizer = Tokenizer.train(['go to the fridge 1', 'open the fridge 1', 'take the apple 2'], {
  vocabSize: 290,
});
const tinyPolicy = () =>
  TfjsPolicy.create({ tokenizer, model: { dModel: 32, nLayers: 1, nHeads: 2, contextLength: 48, seed: 3 } });
const batch: Datum[] = [
  sftDatum(tokenizer, {
    prompt: [{ role: 'user', content: 'you see a fridge 1' }],
    response: 'go to the fridge 1',
  }),
  sftDatum(tokenizer, {
    prompt: [{ role: 'user', content: 'the fridge 1 is closed' }],
    response: 'open the fridge 1',
  }),
];
const weightsOf = (policy: TfjsPolicy) => [...policy.readWeights().values()].flatMap((w) => Array.from(w));

describe('sftStep', () => {
  it('is token-mean cross-entropy and one AdamW step with the SFT settings', async () => {
    const byStep = await tinyPolicy();
    const byHand = await tinyPolicy();
    const result = await sftStep(byStep, batch, { learningRate: 1e-2 });
    const trained = batch.reduce((n, d) => n + d.weights.filter((w) => w > 0).length, 0);
    const mean = batch.map((d) => ({ ...d, weights: d.weights.map((w) => w / trained) }));
    const { loss } = await byHand.forwardBackward(mean, 'cross_entropy');
    await byHand.optimStep({ learningRate: 1e-2, ...SFT_ADAM });
    expect(result.loss).toBeCloseTo(loss, 6);
    expect(result.trainedTokens).toBe(trained);
    expect(result.tokens).toBe(batch[0]!.tokenIds.length + batch[1]!.tokenIds.length);
    expect(weightsOf(byStep)).toEqual(weightsOf(byHand));
    byStep.dispose();
    byHand.dispose();
  });

  it('leaves weights that already sum to one as they are, and rejects a batch with nothing to learn', async () => {
    const a = await tinyPolicy();
    const b = await tinyPolicy();
    const total = batch.reduce((n, d) => n + d.weights.reduce((s, w) => s + w, 0), 0);
    const normalised = batch.map((d) => ({ ...d, weights: d.weights.map((w) => w / total) }));
    const first = await sftStep(a, batch, { learningRate: 1e-2 });
    const second = await sftStep(b, normalised, { learningRate: 1e-2 });
    expect(second.loss).toBeCloseTo(first.loss, 6);
    const [wa, wb] = [weightsOf(a), weightsOf(b)];
    const difference = wa.reduce((max, w, i) => Math.max(max, Math.abs(w - wb[i]!)), 0);
    expect(difference).toBeLessThan(1e-6);
    const unmasked = batch.map((d) => ({ ...d, weights: d.weights.map(() => 0) }));
    await expect(sftStep(a, unmasked, { learningRate: 1e-2 })).rejects.toThrow(InvalidArgumentError);
    a.dispose();
    b.dispose();
  });
});
