// @pilotrl/tinker against a real Tinker server: SkyRL 0.4.0's `skyrl.tinker.api` with its JAX backend
// on the CPU, serving a tiny Qwen3 made on the spot, from the venv of reference/setup.sh. Training
// steps, the built-in and custom losses, sampling, checkpoints, the tokenizer, and failures (bad
// input, a server killed mid-request). Without the venv these tests skip loudly, and fail when CI is set.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Datum, InvalidArgumentError, type LossFn } from '@pilotrl/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  makeTinyModel,
  startTinkerServer,
  type TinkerServer,
  tinkerReference,
} from '../../../tooling/tinker-server';
import {
  createTinkerPolicy,
  MANIFEST_FILE,
  StaleSamplerError,
  type TinkerPolicy,
  type TinkerPolicyOptions,
  TinkerRequestError,
  TokenizerMismatchError,
  tinkerLoss,
} from './index';

const reference = tinkerReference("@pilotrl/tinker against SkyRL's Tinker server (JAX, CPU)");

let server: TinkerServer;
const scratch = mkdtempSync(join(tmpdir(), 'pilotrl-tinker-test-'));
const open: TinkerPolicy[] = [];

async function policy(options: Partial<TinkerPolicyOptions> = {}): Promise<TinkerPolicy> {
  const created = await createTinkerPolicy({
    baseUrl: server.baseUrl,
    baseModel: server.baseModel,
    tokenizerDir: server.tokenizerDir,
    loraRank: 4,
    seed: 7,
    ...options,
  });
  open.push(created);
  return created;
}

function textDatum(p: TinkerPolicy, text: string): Datum {
  const tokenIds = p.encode(text);
  return { tokenIds, weights: tokenIds.map((_, t) => (t === 0 ? 0 : 1)) };
}

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

describe.skipIf(!reference.run)("SkyRL's Tinker server with a tiny Qwen3", () => {
  beforeAll(async () => {
    expect(reference.installed, 'run packages/tinker/reference/setup.sh first').toBe(true);
    server = await startTinkerServer(reference);
  });

  // A server that died mid-test is named, with its exit signal and log, beside the refused requests.
  afterEach(() => server?.assertAlive());

  afterAll(async () => {
    for (const p of open) p.close();
    await server?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('encodes text exactly as Python `tokenizers` does with the same tokenizer.json', async () => {
    const p = await policy();
    const texts = [
      'Count from 1 to 20: 1, 2, 3,',
      'take mug 1 from countertop 2',
      ' héllo  wörld\n\ttabs ✓ 😀',
      '',
    ];
    const python = execFileSync(
      reference.python,
      [
        '-c',
        'import json, sys; from tokenizers import Tokenizer; t = Tokenizer.from_file(sys.argv[1]); ' +
          'print(json.dumps([t.encode(s, add_special_tokens=False).ids for s in json.loads(sys.argv[2])]))',
        join(server.tokenizerDir, 'tokenizer.json'),
        JSON.stringify(texts),
      ],
      { encoding: 'utf8' },
    );
    expect(texts.map((text) => p.encode(text))).toEqual(JSON.parse(python));
    expect(p.tokenizer.decode(p.encode(texts[2]!))).toBe(texts[2]);
  });

  it('lowers the cross-entropy of a text with forward_backward + optim_step', async () => {
    const p = await policy();
    const datum = textDatum(p, 'Count from 1 to 20: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12');
    const losses: number[] = [];
    for (let step = 0; step < 4; step++) {
      const result = await p.forwardBackward([datum], 'cross_entropy');
      // The loss is the sum of -logprob over the weighted tokens, as the returned logprobs give it.
      expect(result.loss).toBeCloseTo(-sum(result.logprobs[0]!), 3);
      const optim = await p.optimStep({ learningRate: 1e-2 });
      expect(optim.version).toBe(step + 1);
      expect(optim.gradNorm).toBeGreaterThan(0);
      losses.push(result.loss);
    }
    console.log(
      `cross-entropy over ${datum.tokenIds.length - 1} tokens, steps 1-4: ${losses.map((l) => l.toFixed(2)).join(' → ')}`,
    );
    expect(losses[3]!).toBeLessThan(losses[0]! - 1);
    // forward_backward and optim_step submitted together, as the Tinker docs advise: their seq_ids
    // keep them in order on the server.
    const [together, optim] = await Promise.all([
      p.forwardBackward([datum], 'cross_entropy'),
      p.optimStep({ learningRate: 1e-2 }),
    ]);
    expect(together.loss).toBeLessThan(losses[0]!);
    expect(optim.version).toBe(5);
    const after = await p.forward([datum]);
    expect(-sum(after[0]!.logprobs)).toBeLessThan(together.loss);
  });

  it('samples with logprobs that equal what forward computes for the same tokens', async () => {
    const p = await policy();
    await p.forwardBackward([textDatum(p, 'take mug 1 from countertop 1.')], 'cross_entropy');
    await p.optimStep({ learningRate: 1e-2 });
    const [sample] = await p
      .sampler()
      .generate([{ messages: [{ role: 'user', content: 'Count from 1 to 20:' }], maxTokens: 12, seed: 5 }]);
    expect(sample!.policyVersion).toBe(1);
    expect(sample!.tokenIds.length).toBeGreaterThan(0);
    const tokenIds = [...sample!.promptTokenIds, ...sample!.tokenIds];
    const [scored] = await p.forward([{ tokenIds, weights: tokenIds.map(() => 0) }]);
    const forwardLogprobs = scored!.logprobs.slice(sample!.promptTokenIds.length);
    const gap = Math.max(...forwardLogprobs.map((lp, i) => Math.abs(lp - sample!.logprobs[i]!)));
    console.log(
      `sampler vs forward logprobs over ${forwardLogprobs.length} tokens: max gap ${gap.toExponential(2)}`,
    );
    expect(gap).toBeLessThan(1e-3);
  });

  it("computes importance_sampling and ppo losses that equal SkyRL's formulas on the returned logprobs", async () => {
    const p = await policy();
    const [sample] = await p
      .sampler()
      .generate([{ messages: [{ role: 'user', content: 'Go.' }], maxTokens: 10, seed: 1 }]);
    const prompt = sample!.promptTokenIds.length;
    const tokenIds = [...sample!.promptTokenIds, ...sample!.tokenIds];
    const onReply = (value: (i: number) => number) =>
      tokenIds.map((_, t) => (t < prompt ? 0 : value(t - prompt)));
    // Sampler logprobs shifted a little, so that ratios differ from 1 and PPO clips some tokens.
    const datum: Datum = {
      tokenIds,
      weights: onReply(() => 1),
      samplerLogprobs: onReply((i) => sample!.logprobs[i]! + (i % 3 === 0 ? 0.5 : -0.1)),
      advantages: onReply((i) => (i % 2 === 0 ? 1.5 : -0.5)),
    };
    const is = await p.forwardBackward([datum], 'importance_sampling');
    const expected = sum(
      tokenIds.map((_, t) =>
        t < prompt ? 0 : -Math.exp(is.logprobs[0]![t]! - datum.samplerLogprobs![t]!) * datum.advantages![t]!,
      ),
    );
    expect(is.loss).toBeCloseTo(expected, 4);
    expect(tinkerLoss('importance_sampling')({ datums: [datum], logprobs: is.logprobs }).loss).toBeCloseTo(
      is.loss,
      4,
    );
    const ppoLoss = tinkerLoss('ppo', { clipLowThreshold: 0.8, clipHighThreshold: 1.2 });
    const ppo = await p.forwardBackward([datum], ppoLoss);
    expect(ppo.loss).toBeCloseTo(ppoLoss({ datums: [datum], logprobs: ppo.logprobs }).loss, 4);
    expect(ppo.loss).not.toBeCloseTo(is.loss, 2);
    console.log(
      `importance_sampling loss ${is.loss.toFixed(4)} (formula ${expected.toFixed(4)}), ppo ${ppo.loss.toFixed(4)}`,
    );
  });

  it('applies a custom LossFn through its surrogate with the same update as the built-in loss', async () => {
    const builtin = await policy({ seed: 11 });
    const custom = await policy({ seed: 11 });
    const datum = textDatum(builtin, 'You arrive at countertop 1. On the countertop 1, you see a mug 1.');
    const [base] = await builtin.forward([datum]);
    const withAdvantages: Datum = {
      ...datum,
      samplerLogprobs: base!.logprobs.map((lp, t) => (t === 0 ? 0 : lp + 0.2)),
      advantages: datum.tokenIds.map((_, t) => (t % 2 === 0 ? 2 : -1)),
    };
    const isFormula = tinkerLoss('importance_sampling');
    // The same loss, untagged: the policy cannot tell it from any other LossFn.
    const plain: LossFn = (input) => isFormula(input);
    const a = await builtin.forwardBackward([withAdvantages], 'importance_sampling');
    await builtin.optimStep({ learningRate: 5e-2 });
    // Started together: the step must still come after both of the surrogate's passes.
    const [b] = await Promise.all([
      custom.forwardBackward([withAdvantages], plain),
      custom.optimStep({ learningRate: 5e-2 }),
    ]);
    expect(b.loss).toBeCloseTo(a.loss, 4);
    const [afterBuiltin] = await builtin.forward([datum]);
    const [afterCustom] = await custom.forward([datum]);
    const moved = Math.max(...afterBuiltin!.logprobs.map((lp, t) => Math.abs(lp - base!.logprobs[t]!)));
    const gap = Math.max(...afterBuiltin!.logprobs.map((lp, t) => Math.abs(lp - afterCustom!.logprobs[t]!)));
    console.log(
      `built-in vs surrogate update: logprobs moved up to ${moved.toFixed(4)}, differ by ${gap.toExponential(2)}`,
    );
    expect(moved).toBeGreaterThan(1e-2);
    expect(gap).toBeLessThan(moved / 100);
  });

  it('saves its state and a new client that loads it scores the same logprobs', async () => {
    const p = await policy();
    const datum = textDatum(p, 'put a clean mug in the coffeemachine');
    await p.forwardBackward([datum], 'cross_entropy');
    await p.optimStep({ learningRate: 3e-2 });
    const dir = join(scratch, 'checkpoint');
    const started = Date.now();
    await p.saveState(dir);
    const [saved] = await p.forward([datum]);
    const resumed = await policy({ seed: 99 });
    await resumed.loadState(dir);
    console.log(`save + load of a rank-4 LoRA state: ${Date.now() - started} ms`);
    expect(resumed.version).toBe(1);
    const [loaded] = await resumed.forward([datum]);
    for (const [t, lp] of loaded!.logprobs.entries()) expect(lp).toBeCloseTo(saved!.logprobs[t]!, 4);
    const samplerPath = await p.saveForSampler('after_step_1');
    // SkyRL names it tinker://<model>/<name>; the API also spells it tinker://<model>/sampler_weights/<name>.
    expect(samplerPath).toMatch(new RegExp(`^tinker://${p.modelId}/(sampler_weights/)?after_step_1$`));
    // Sampled from the saved weights, as from the policy's own at the same version and seed.
    const request = { messages: [{ role: 'user' as const, content: 'Go.' }], maxTokens: 6, seed: 4 };
    const [fromSaved] = await p.samplerAt(samplerPath, 1).generate([request]);
    const [fromPolicy] = await p.sampler().generate([request]);
    expect(fromSaved).toEqual(fromPolicy);
    // Loading again into a model that has run requests takes a fresh model on the server.
    const usedModel = resumed.modelId;
    await resumed.loadState(dir);
    expect(resumed.modelId).not.toBe(usedModel);
  });

  it('refuses a pinned sampler once the policy moved past it, and a follower reports the version it sampled', async () => {
    const p = await policy();
    const pinned = p.sampler({ follow: false });
    const follower = p.sampler();
    const request = { messages: [{ role: 'user' as const, content: 'Go.' }], maxTokens: 4, seed: 2 };
    expect((await pinned.generate([request]))[0]!.policyVersion).toBe(0);
    await p.forwardBackward([textDatum(p, 'go to countertop 1')], 'cross_entropy');
    await p.optimStep({ learningRate: 1e-2 });
    await expect(pinned.generate([request])).rejects.toSatisfy((error) =>
      StaleSamplerError.isInstance(error),
    );
    expect((await follower.generate([request]))[0]!.policyVersion).toBe(1);
  });

  it('rejects bad input with errors that say what is wrong', async () => {
    const p = await policy();
    const outside = { tokenIds: [1, 2, p.tokenizer.vocabSize + 5], weights: [0, 1, 1] };
    await expect(p.forward([outside])).rejects.toSatisfy(
      (error) =>
        InvalidArgumentError.isInstance(error) && /outside the vocabulary/.test((error as Error).message),
    );
    await expect(
      createTinkerPolicy({
        baseUrl: server.baseUrl,
        baseModel: 'Qwen/Qwen3-8B',
        tokenizerDir: server.tokenizerDir,
      }),
    ).rejects.toThrow(/does not serve base model "Qwen\/Qwen3-8B"/);
    // A tokenizer with more ids than the server's model.
    const otherTokenizer = join(scratch, 'other-tokenizer');
    await makeTinyModel(reference, otherTokenizer, { vocabSize: 420, tokenizerOnly: true });
    await expect(
      createTinkerPolicy({
        baseUrl: server.baseUrl,
        baseModel: server.baseModel,
        tokenizerDir: otherTokenizer,
        maxRetries: 1,
      }),
    ).rejects.toSatisfy((error) => TokenizerMismatchError.isInstance(error));
    // A checkpoint the server does not have: its 404 and detail are quoted.
    const missing = join(scratch, 'missing');
    await p.saveState(missing);
    const manifestPath = join(missing, MANIFEST_FILE);
    const manifest = JSON.parse(execFileSync('cat', [manifestPath], { encoding: 'utf8' }));
    writeFileSync(
      manifestPath,
      JSON.stringify({ ...manifest, tinkerPath: manifest.tinkerPath.replace(/[^/]+$/, 'nope') }),
    );
    const fresh = await policy();
    await expect(fresh.loadState(missing)).rejects.toSatisfy(
      (error) =>
        TinkerRequestError.isInstance(error) &&
        (error as TinkerRequestError).status === 404 &&
        /Checkpoint not found/.test((error as Error).message),
    );
    // The caller's abort ends a running request.
    const controller = new AbortController();
    const running = p.forward([textDatum(p, 'a long enough text to score')], { signal: controller.signal });
    controller.abort();
    await expect(running).rejects.toSatisfy(
      (error) => TinkerRequestError.isInstance(error) && (error as TinkerRequestError).reason === 'aborted',
    );
  });

  it('surfaces a server killed mid-request as a retryable "unreachable" error', async () => {
    const p = await policy({ maxConnectionRetries: 2, maxBackoffMs: 200, futureDeadlineMs: 60_000 });
    // A batch larger than any before, so the step (and its compile) takes seconds.
    const datum = textDatum(p, 'a datum whose step never finishes, '.repeat(6));
    const submissions = () => server.log().split('"POST /api/v1/forward_backward HTTP/1.1" 200').length;
    const before = submissions();
    const running = p.forwardBackward(Array(48).fill(datum), 'cross_entropy');
    // Killed once the server has taken the request (its access log says so), while it runs.
    while (submissions() === before) await new Promise((done) => setTimeout(done, 10));
    await server.kill();
    const error = await running.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(TinkerRequestError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ reason: 'unreachable', retryable: true });
    expect((error as Error).message).toMatch(/forward_backward \(cross_entropy\) \(request \d+\)/);
  });
});
