// LoRA and the supervised step of our Hugging Face decoder against PEFT and transformers: tiny
// random Qwen3 and Llama models from tiny_hf_models.py, PEFT's adapters (their initial A drawn in
// the range of ours, then copied to ours, so both start equal) or every weight trained, two AdamW
// steps on one batch on each side (reference/lora_step.py), and the losses and trained weights
// compared after each step.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PilotRLError } from '@pilotrl/core';
import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BackendChoice, initBackend } from '../backend';
import { nativeInstallState, nativePackageDir } from '../native/native-install';
import { HfDecoderModel } from './llama';
import { readHfWeights } from './model-dir';
import { tinyHfModels } from './tiny-hf-models.testing';

const {
  reference,
  run: python,
  runScript,
} = tinyHfModels("@pilotrl/policy-tfjs's LoRA and supervised step against PEFT and transformers");
const nativeReady = nativeInstallState('cpu', nativePackageDir('cpu')).state === 'ready';
const BACKENDS: BackendChoice[] = ['tensorflow', 'wasm'];
const STEPS = 2;
const ADAM = { learningRate: 1e-2, beta1: 0.9, beta2: 0.999, weightDecay: 0.1 };
// Adam's first step moves each weight by lr·g/(|g| + eps): with torch's eps of 1e-8, a gradient
// near zero turns float32 rounding (which differs between torch's kernels and tfjs') into a
// visible part of lr; with eps 1e-2 the step is nearly linear in the gradient, so the weights
// must agree much more closely. The loss agrees closely with either.
const SETTINGS = [
  { eps: 1e-8, weightTolerance: 1e-3 },
  { eps: 1e-2, weightTolerance: 2e-6 },
];
const LORA = {
  rank: 4,
  alpha: 8,
  targetModules: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'],
};

// Ids below 420 are in both tiny models' vocabularies; rows of two lengths, the first one's
// four-token prompt not trained on.
const IDS = [
  [5, 17, 230, 99, 3, 411, 64, 64, 8, 150, 151, 152, 7, 300],
  [40, 41, 42, 43, 44, 45, 46],
];
const LOSS_MASK = [
  [0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
  [1, 1, 1, 1, 1, 1, 1],
];

const CASES = [
  { name: 'qwen3', lora: true },
  { name: 'llama', lora: true },
  { name: 'qwen3', lora: false },
].flatMap((c) => SETTINGS.map((setting) => ({ ...c, ...setting })));
type Case = (typeof CASES)[number];

/** A trained weight as lora_step.py writes it: nested lists of its shape. */
type Nested = number | Nested[];
interface Answer {
  initial: Record<string, Nested>;
  losses: number[];
  after: Record<string, Nested>[];
}

const scratch = mkdtempSync(join(tmpdir(), 'pilotrl-hf-lora-'));
const expected = new Map<string, Answer>();
const caseKey = (c: Case) => `${c.name}, ${c.lora ? 'LoRA' : 'every weight'}, eps ${c.eps}`;

const flatten = (values: Nested): number[] =>
  typeof values === 'number' ? [values] : values.flatMap(flatten);

/** The largest |ours − theirs| over `theirs`' weights, and the weight where it is. */
function largestDifference(ours: ReadonlyMap<string, tf.Variable>, theirs: Record<string, Nested>) {
  let worst = { difference: 0, name: '' };
  for (const [name, values] of Object.entries(theirs)) {
    const variable = ours.get(name);
    expect(variable, `${name} is trained by transformers but not by us`).toBeDefined();
    const mine = variable!.dataSync();
    const flat = flatten(values);
    expect(mine.length, name).toBe(flat.length);
    for (let i = 0; i < flat.length; i++) {
      const difference = Math.abs(mine[i]! - flat[i]!);
      if (difference > worst.difference) worst = { difference, name };
    }
  }
  expect(ours.size, 'we train weights transformers does not').toBe(Object.keys(theirs).length);
  return worst;
}

describe.skipIf(!reference.run)('LoRA and the supervised step against PEFT and transformers', () => {
  beforeAll(async () => {
    expect(reference.installed, 'run packages/policy-tfjs/reference/setup.sh first').toBe(true);
    if (!nativeReady) throw new PilotRLError('the native backend is not set up (pnpm tfjs:doctor says why)');
    await python(['make', scratch]);
    for (const c of CASES) {
      const request = {
        model: join(scratch, c.name),
        lora: c.lora ? { rank: LORA.rank, alpha: LORA.alpha, target_modules: LORA.targetModules } : null,
        ids: IDS,
        loss_mask: LOSS_MASK,
        adam: {
          lr: ADAM.learningRate,
          beta1: ADAM.beta1,
          beta2: ADAM.beta2,
          eps: c.eps,
          weight_decay: ADAM.weightDecay,
        },
        steps: STEPS,
      };
      expected.set(
        caseKey(c),
        JSON.parse(await runScript('lora_step.py', [], JSON.stringify(request))) as Answer,
      );
    }
  });

  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  for (const backend of BACKENDS) {
    for (const c of CASES) {
      it(`${caseKey(c)}, on ${backend}: losses within 1e-4, trained weights within ${c.weightTolerance.toExponential()} after each of ${STEPS} AdamW steps`, async () => {
        await initBackend({ backend });
        expect(tf.getBackend()).toBe(backend);
        const want = expected.get(caseKey(c))!;
        const model = new HfDecoderModel(await readHfWeights(join(scratch, c.name)));
        try {
          if (c.lora) {
            model.addLora(LORA);
            // PEFT's initial A (and zero B) in place of our own draw, so both sides start equal;
            // first, both draws span the same range, ±1/√in, and both B are zero.
            for (const [name, values] of Object.entries(want.initial)) {
              const variable = model.trainableWeights.get(name);
              expect(variable, `PEFT adapts ${name}, we do not`).toBeDefined();
              const theirs = flatten(values);
              const largest = (v: ArrayLike<number>) => Math.max(...Array.from(v, Math.abs));
              if (name.endsWith('lora_A.weight')) {
                const bound = 1 / Math.sqrt(variable!.shape[1]!);
                for (const draw of [theirs, variable!.dataSync()]) {
                  expect(largest(draw), name).toBeLessThanOrEqual(bound);
                  expect(largest(draw), name).toBeGreaterThan(0.8 * bound);
                }
              } else {
                expect(largest(theirs) + largest(variable!.dataSync()), name).toBe(0);
              }
              variable!.assign(tf.tensor(theirs, variable!.shape));
            }
          }
          expect(largestDifference(model.trainableWeights, want.initial).difference).toBeLessThan(1e-6);
          const frozen = c.lora ? new Map([...model.weights].map(([n, v]) => [n, v.dataSync()])) : undefined;
          for (let step = 0; step < STEPS; step++) {
            const { loss } = await model.supervisedStep(
              { ids: IDS, lossMask: LOSS_MASK },
              { ...ADAM, eps: c.eps },
            );
            expect(Math.abs(loss - want.losses[step]!), `loss before step ${step + 1}`).toBeLessThan(1e-4);
            const worst = largestDifference(model.trainableWeights, want.after[step]!);
            expect(worst.difference, `${worst.name} after step ${step + 1}`).toBeLessThan(c.weightTolerance);
          }
          if (frozen !== undefined) {
            for (const [name, variable] of model.weights)
              expect(variable.dataSync(), name).toEqual(frozen.get(name));
          }
        } finally {
          model.dispose();
        }
      });
    }
  }
});
