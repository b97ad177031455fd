// HfPolicy on a tiny random Qwen3 directory written from a fixed seed (no Python): forward's
// logprobs are the log-softmax of the decoder's logits at the targets, cross-entropy steps fit a
// repeated batch with every weight or with LoRA adapters only, a LossFn with cross-entropy's
// gradient takes the same step, greedy sampling is the decoder's greedy decoding of the chat
// prompt, choices follow the constrained distribution, and a saved state loads back exactly or is
// refused, naming the file and the field, when it was made for another model or other adapters or
// lost a tensor.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheckpointError, type Datum, type LossFn } from '@pilotrl/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeSafetensors } from '../export/safetensors-writer';
import { HfPolicy } from './hf-policy';
import { HF_POLICY_STATE_FILE, HF_TRAINABLE_FILE } from './hf-policy-state';
import { type HfPretrained, loadHfPretrained } from './pretrained';
import { readSafetensors, readSafetensorsHeader } from './safetensors';
import { TINY_IM_END, writeTinyHfDir } from './tiny-hf-dir.testing';

const scratch = mkdtempSync(join(tmpdir(), 'pilotrl-hf-policy-'));
const modelDir = writeTinyHfDir(join(scratch, 'model'));
const lora = { rank: 4, alpha: 8, targetModules: ['q_proj', 'v_proj', 'down_proj'], seed: 1 };
let reference: HfPretrained;

beforeAll(async () => {
  (await HfPolicy.load(modelDir)).dispose(); // starts the backend
  reference = await loadHfPretrained(modelDir);
});
afterAll(() => {
  reference.model.dispose();
  rmSync(scratch, { recursive: true, force: true });
});

/** A datum of `prompt` then `reply`: the reply's tokens weighted 1, the prompt's 0. */
function datumOf(policy: HfPolicy, prompt: string, reply: string): Datum {
  const promptIds = policy.encode(prompt);
  const tokenIds = [...promptIds, ...policy.encode(reply), TINY_IM_END];
  return { tokenIds, weights: tokenIds.map((_, t) => (t < promptIds.length ? 0 : 1)) };
}
const texts: [string, string][] = [
  ['where is the apple?', ' on the table'],
  ['hello', ' there'],
];
const batchOf = (policy: HfPolicy) => texts.map(([prompt, reply]) => datumOf(policy, prompt, reply));

/** log-softmax of the reference decoder's logits at each target of `tokenIds` (entry 0 is 0). */
async function referenceLogprobs(tokenIds: readonly number[]): Promise<number[]> {
  const vocab = reference.config.vocabSize;
  const logits = await reference.model.logitsOf([tokenIds]);
  return tokenIds.map((target, t) => {
    if (t === 0) return 0;
    const row = logits.subarray((t - 1) * vocab, t * vocab);
    const max = Math.max(...row);
    const total = row.reduce((sum, x) => sum + Math.exp(x - max), 0);
    return row[target]! - max - Math.log(total);
  });
}

const maxDifference = (a: ReadonlyMap<string, Float32Array>, b: ReadonlyMap<string, Float32Array>) => {
  expect([...a.keys()]).toEqual([...b.keys()]);
  let max = 0;
  for (const [name, values] of a) {
    const other = b.get(name)!;
    for (let i = 0; i < values.length; i++) max = Math.max(max, Math.abs(values[i]! - other[i]!));
  }
  return max;
};

describe('HfPolicy training', () => {
  it("forward gives the log-softmax of the decoder's logits at every target", async () => {
    const policy = await HfPolicy.load(modelDir);
    const batch = batchOf(policy);
    const results = await policy.forward(batch);
    for (const [d, datum] of batch.entries()) {
      const want = await referenceLogprobs(datum.tokenIds);
      expect(results[d]!.logprobs).toHaveLength(datum.tokenIds.length);
      results[d]!.logprobs.forEach((lp, t) => {
        expect(lp).toBeCloseTo(want[t]!, 4);
      });
    }
    policy.dispose();
  });

  it.each([
    ['every weight', undefined],
    ['LoRA adapters', lora],
  ])('fits a repeated batch with cross-entropy, training %s', async (_, loraOptions) => {
    const policy = await HfPolicy.load(modelDir, { lora: loraOptions });
    const trained = [...policy.readTrainableWeights().keys()];
    if (loraOptions === undefined) expect(trained).toContain('model.embed_tokens.weight');
    else expect(trained.every((name) => /\.lora_[AB]\.weight$/.test(name))).toBe(true);
    const batch = batchOf(policy);
    const first = await policy.forwardBackward(batch, 'cross_entropy');
    expect(first.metrics.tokens).toBe(batch.reduce((n, d) => n + d.weights.filter((w) => w > 0).length, 0));
    let last = first.loss;
    for (let step = 1; step <= 8; step++) {
      expect((await policy.optimStep({ learningRate: 3e-2 })).version).toBe(step);
      last = (await policy.forwardBackward(batch, 'cross_entropy')).loss;
    }
    expect(last).toBeLessThan(first.loss * 0.7);
    expect(policy.version).toBe(8);
    expect(policy.sampler().version).toBe(8);
    policy.dispose();
  });

  it('takes the same step with a LossFn that has the gradient of cross-entropy', async () => {
    const builtIn = await HfPolicy.load(modelDir, { lora });
    const custom = await HfPolicy.load(modelDir, { lora });
    const summedCrossEntropy: LossFn = ({ datums, logprobs }) => ({
      loss: -datums.reduce(
        (sum, d, i) => sum + d.weights.reduce((s, w, t) => s + w * logprobs[i]![t]!, 0),
        0,
      ),
      gradLogprobs: datums.map((d) => d.weights.map((w) => -w)),
    });
    for (let step = 0; step < 2; step++) {
      const a = await builtIn.forwardBackward(batchOf(builtIn), 'cross_entropy');
      const b = await custom.forwardBackward(batchOf(custom), summedCrossEntropy);
      expect(b.loss).toBeCloseTo(a.loss, 4);
      // Adam's step hides a scaled gradient; the gradient norm does not.
      const { gradNorm } = await builtIn.optimStep({ learningRate: 1e-2 });
      expect((await custom.optimStep({ learningRate: 1e-2 })).gradNorm).toBeCloseTo(gradNorm, 4);
    }
    expect(maxDifference(builtIn.readTrainableWeights(), custom.readTrainableWeights())).toBeLessThan(1e-5);
    builtIn.dispose();
    custom.dispose();
  });
});

describe('HfPolicy sampling', () => {
  const messages = [{ role: 'user' as const, content: 'where is the apple?' }];

  it('makes a reply datum of the prompt the sampler renders (weight 0), the reply and the end of the turn', async () => {
    const policy = await HfPolicy.load(modelDir);
    const [sampled] = await policy.sampler().generate([{ messages, temperature: 0, maxTokens: 1 }]);
    const prompt = sampled!.promptTokenIds;
    const datum = policy.replyDatum(messages, ' on the table');
    expect(datum.tokenIds).toEqual([...prompt, ...policy.encode(' on the table'), TINY_IM_END]);
    expect(datum.weights).toEqual(datum.tokenIds.map((_, t) => (t < prompt.length ? 0 : 1)));
    policy.dispose();
  });

  it("samples greedily as the decoder's greedy decoding of the chat prompt, reporting the version", async () => {
    const policy = await HfPolicy.load(modelDir);
    const [reply] = await policy.sampler().generate([{ messages, temperature: 0, maxTokens: 12 }]);
    const prompt = reference.tokenizer.encode(
      reference.chatTemplate.render(messages, { enableThinking: false }),
    );
    expect(reply!.promptTokenIds).toEqual(prompt);
    expect(reply!.tokenIds).toEqual(await reference.model.greedy(prompt, 12, [TINY_IM_END]));
    expect(reply!.logprobs).toHaveLength(reply!.tokenIds.length);
    expect(reply!.policyVersion).toBe(0);
    const ended = reply!.tokenIds.at(-1) === TINY_IM_END;
    expect(reply!.finishReason).toBe(ended ? 'stop' : 'length');
    expect(reply!.text).toBe(
      reference.tokenizer.decode(ended ? reply!.tokenIds.slice(0, -1) : reply!.tokenIds),
    );
    policy.dispose();
  });

  it('repeats a seeded sample and stops at the end of the turn once trained to', async () => {
    const policy = await HfPolicy.load(modelDir);
    const request = { messages, temperature: 1, maxTokens: 8, seed: 5 };
    const [a, b] = await policy.generate([request, request]);
    expect(b!.tokenIds).toEqual(a!.tokenIds);
    const prompt = policy.renderPrompt(messages);
    const tokenIds = [...prompt, ...policy.encode('on'), TINY_IM_END];
    const datum = { tokenIds, weights: tokenIds.map((_, t) => (t < prompt.length ? 0 : 1)) };
    for (let step = 0; step < 30; step++) {
      await policy.forwardBackward([datum], 'cross_entropy');
      await policy.optimStep({ learningRate: 3e-2 });
    }
    const [reply] = await policy.generate([{ messages, temperature: 0, maxTokens: 8 }]);
    expect(reply).toMatchObject({ text: 'on', finishReason: 'stop', policyVersion: 30 });
    expect(reply!.tokenIds).toEqual([...policy.encode('on'), TINY_IM_END]);
    policy.dispose();
  });

  it('chooses among strings by the distribution of decoding constrained to them', async () => {
    const policy = await HfPolicy.load(modelDir);
    const choices = ['on the table', 'in the sink', 'in the fridge'];
    const [reply] = await policy.generate([{ messages, temperature: 0, choices }]);
    const prompt = policy.renderPrompt(messages);
    // Each choice's tokens are its text and the end of the turn; the first tokens are 'on' and 'i'
    // (twice), so 'in the ' is shared and only 's' and 'f' after it are chosen between again.
    const ids = choices.map((c) => [...policy.encode(c), TINY_IM_END]);
    const logprobsAfter = async (prefix: number[], tokens: number[]) =>
      Promise.all(
        tokens.map(async (token) => (await referenceLogprobs([...prompt, ...prefix, token])).at(-1)!),
      );
    const logSumExp = (xs: number[]) => {
      const max = Math.max(...xs);
      return max + Math.log(xs.reduce((s, x) => s + Math.exp(x - max), 0));
    };
    const first = await logprobsAfter([], [ids[0]![0]!, ids[1]![0]!]);
    const split = ids[1]!.findIndex((token, d) => token !== ids[2]![d]);
    const shared = ids[1]!.slice(0, split);
    const second = await logprobsAfter(shared, [ids[1]![split]!, ids[2]![split]!]);
    const want = [
      first[0]! - logSumExp(first),
      first[1]! - logSumExp(first) + second[0]! - logSumExp(second),
      first[1]! - logSumExp(first) + second[1]! - logSumExp(second),
    ];
    reply!.choiceLogprobs!.forEach((lp, i) => {
      expect(lp).toBeCloseTo(want[i]!, 4);
    });
    const best = want.indexOf(Math.max(...want));
    expect(reply).toMatchObject({ text: choices[best], choiceIndex: best, finishReason: 'choice' });
    expect(reply!.tokenIds).toEqual(ids[best]);
    expect(reply!.allowedTokenIds![0]).toEqual([ids[0]![0], ids[1]![0]]);
    expect(policy.sampler().choiceTokens!(choices)).toBe(Math.max(...ids.map((c) => c.length)));
    policy.dispose();
  });

  it('gives a sampled choice the same logprobs in training, through its allowed token ids', async () => {
    const policy = await HfPolicy.load(modelDir);
    const choices = ['on the table', 'in the sink', 'in the fridge'];
    const [reply] = await policy.generate([{ messages, temperature: 1, seed: 3, choices }]);
    const prompt = reply!.promptTokenIds;
    const [scored] = await policy.forward([
      {
        tokenIds: [...prompt, ...reply!.tokenIds],
        weights: [...prompt.map(() => 0), ...reply!.tokenIds.map(() => 1)],
        allowedTokenIds: [...prompt.map(() => null), ...reply!.allowedTokenIds!],
      },
    ]);
    scored!.logprobs.slice(prompt.length).forEach((lp, t) => {
      expect(lp).toBeCloseTo(reply!.logprobs[t]!, 4);
    });
    policy.dispose();
  });
});

describe('HfPolicy state', () => {
  const stateDir = join(scratch, 'state');

  it('saves and loads the trained adapters, the optimizer and the version exactly', async () => {
    const policy = await HfPolicy.load(modelDir, { lora });
    const batch = batchOf(policy);
    for (let step = 0; step < 2; step++) {
      await policy.forwardBackward(batch, 'cross_entropy');
      await policy.optimStep({ learningRate: 1e-2 });
    }
    await policy.saveState(stateDir);
    const loaded = await HfPolicy.load(modelDir, { lora: { ...lora, seed: 9 } });
    await loaded.loadState(stateDir);
    expect(loaded.version).toBe(2);
    expect(await loaded.forward(batch)).toEqual(await policy.forward(batch));
    // The moments came back too: one more step moves both alike.
    for (const p of [policy, loaded]) {
      await p.forwardBackward(batch, 'cross_entropy');
      await p.optimStep({ learningRate: 1e-2 });
    }
    expect(maxDifference(policy.readTrainableWeights(), loaded.readTrainableWeights())).toBe(0);
    policy.dispose();
    loaded.dispose();
  });

  it('refuses a state made for other adapters or another base model, naming the file and the field', async () => {
    const manifest = join(stateDir, HF_POLICY_STATE_FILE);
    const refusal = async (dir: string, options: Parameters<typeof HfPolicy.load>[1]) => {
      const policy = await HfPolicy.load(dir, options);
      try {
        const error = await policy.loadState(stateDir).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(CheckpointError.isInstance(error)).toBe(true);
        return (error as Error).message;
      } finally {
        policy.dispose();
      }
    };
    expect(await refusal(modelDir, {})).toMatch(`${manifest}: lora is {`);
    expect(await refusal(modelDir, { lora: { ...lora, rank: 2 } })).toMatch(`${manifest}: lora.rank is 4`);
    expect(await refusal(modelDir, { lora: { ...lora, targetModules: ['q_proj'] } })).toMatch(
      `${manifest}: lora.targetModules is`,
    );
    const deeper = writeTinyHfDir(join(scratch, 'deeper'), 3, { numLayers: 3 });
    expect(await refusal(deeper, { lora })).toMatch(`${manifest}: base.config.numLayers is 2`);
    const other = writeTinyHfDir(join(scratch, 'other'), 4);
    expect(await refusal(other, { lora })).toMatch(`${manifest}: base.dir is "${modelDir}"`);
    // A weights file that lost a tensor: refused before any weight is assigned.
    const weightsFile = join(stateDir, HF_TRAINABLE_FILE);
    const kept = await readSafetensorsHeader(weightsFile);
    const [dropped, ...rest] = [...kept.tensors.values()];
    const values = await readSafetensors(
      kept,
      rest.map((entry) => entry.name),
    );
    writeFileSync(
      weightsFile,
      encodeSafetensors(rest.map(({ name, shape }) => ({ name, shape, data: values.get(name)! }))),
    );
    expect(await refusal(modelDir, { lora })).toBe(`${weightsFile}: has no tensor "${dropped!.name}"`);
  });
});
