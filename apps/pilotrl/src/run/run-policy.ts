// The policy a run trains, whichever backend holds its weights: `tfjs` trains a small transformer in
// this process (its tokenizer trained on oracle demonstrations), `tinker` trains a base model on a
// server that speaks the Tinker API. Beyond core's TrainablePolicy, a run needs three things the
// backends do differently: a supervised example in the policy's own tokens, a frozen copy of the
// weights (the KL reference) and a way to let go of it all.
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AdamParams,
  type ChatMessage,
  ConfigError,
  type Datum,
  type ForwardBackwardOptions,
  type ForwardBackwardResult,
  type ForwardResult,
  type LossFn,
  type OptimStepResult,
  type Policy,
  type TrainablePolicy,
} from '@pilotrl/core';
import { sftDatum, TfjsPolicy } from '@pilotrl/policy-tfjs';
import { createTinkerPolicy, type TinkerPolicy } from '@pilotrl/tinker';
import type { CurriculumConfig } from '../config/curriculum-config';
import type { RunEnv } from './run-envs';
import { backendOption, createPolicy, trainTokenizer } from './run-setup';

/** A supervised example: chat messages, then the reply to learn. */
export interface ReplyExample {
  prompt: readonly ChatMessage[];
  response: string;
}

/** Weights frozen at one version (they never train), and what lets them go. */
export interface FrozenPolicy {
  readonly policy: TrainablePolicy;
  dispose(): Promise<void>;
}

export interface RunPolicy extends TrainablePolicy {
  /** Where the weights live, for the run's manifest: the tfjs backend's name, or `tinker`. */
  readonly backendName: string;
  /** One line on what trains: parameters and vocabulary, or the server and model. */
  describe(): string;
  /** `example` as a training datum in this policy's tokens, rendered as its sampler renders prompts. */
  replyDatum(example: ReplyExample): Datum;
  /** A copy of the current weights that stays as it is while this policy trains. */
  freeze(): Promise<FrozenPolicy>;
  dispose(): void;
}

/** Calls to TrainablePolicy pass through to the backend's own policy. */
abstract class DelegatingPolicy<P extends TrainablePolicy> implements TrainablePolicy {
  constructor(readonly inner: P) {}
  get name(): string {
    return this.inner.name;
  }
  get version(): number {
    return this.inner.version;
  }
  forward(datums: readonly Datum[]): Promise<ForwardResult[]> {
    return this.inner.forward(datums);
  }
  forwardBackward(
    datums: readonly Datum[],
    loss: LossFn | 'cross_entropy',
    options?: ForwardBackwardOptions,
  ): Promise<ForwardBackwardResult> {
    return this.inner.forwardBackward(datums, loss, options);
  }
  optimStep(params: AdamParams): Promise<OptimStepResult> {
    return this.inner.optimStep(params);
  }
  sampler(): Policy {
    return this.inner.sampler();
  }
  encode(text: string): number[] {
    return this.inner.encode(text);
  }
  saveState(dir: string): Promise<void> {
    return this.inner.saveState(dir);
  }
  loadState(dir: string): Promise<void> {
    return this.inner.loadState(dir);
  }
}

class TfjsRunPolicy extends DelegatingPolicy<TfjsPolicy> implements RunPolicy {
  get backendName(): string {
    return this.inner.backend.choice;
  }
  describe(): string {
    return `${this.inner.parameterCount()} parameters, vocabulary ${this.inner.tokenizer.vocabSize}`;
  }
  replyDatum(example: ReplyExample): Datum {
    return sftDatum(this.inner.tokenizer, example);
  }
  async freeze(): Promise<FrozenPolicy> {
    const copy = this.inner.snapshot();
    return { policy: copy, dispose: async () => copy.dispose() };
  }
  dispose(): void {
    this.inner.dispose();
  }
}

class TinkerRunPolicy extends DelegatingPolicy<TinkerPolicy> implements RunPolicy {
  constructor(
    inner: TinkerPolicy,
    private readonly config: CurriculumConfig,
  ) {
    super(inner);
  }
  readonly backendName = 'tinker';
  describe(): string {
    const loraRank = loraRankOf(this.config.policy);
    const rank = loraRank === 0 ? 'full fine-tune' : `LoRA rank ${loraRank}`;
    return `${this.inner.name} on ${this.config.policy.baseUrl} (${rank}), vocabulary ${this.inner.tokenizer.vocabSize}`;
  }
  replyDatum(example: ReplyExample): Datum {
    return this.inner.replyDatum(example.prompt, example.response);
  }
  /** A second model on the server, loaded with the weights saved now. */
  async freeze(): Promise<FrozenPolicy> {
    const dir = mkdtempSync(join(tmpdir(), 'pilotrl-tinker-reference-'));
    try {
      await this.inner.saveState(dir);
      const copy = await connectTinker(this.config, `${this.inner.name} (frozen at v${this.inner.version})`);
      try {
        await copy.loadState(dir);
      } catch (error) {
        copy.close();
        throw error;
      }
      return { policy: copy, dispose: async () => copy.close() };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  dispose(): void {
    this.inner.close();
  }
}

/** The LoRA rank a Tinker policy trains: the config's, or the Tinker SDK's default, 32. */
const loraRankOf = (policy: CurriculumConfig['policy']): number => policy.loraRank ?? 32;

/** The directory of the Tinker model's tokenizer: `tokenizerDir`, or the base model's own directory. */
function tokenizerDirOf(policy: CurriculumConfig['policy']): string {
  if (policy.tokenizerDir !== undefined) return policy.tokenizerDir;
  const baseModel = policy.baseModel!;
  if (existsSync(baseModel) && statSync(baseModel).isDirectory()) return baseModel;
  throw new ConfigError(
    `policy.tokenizerDir: give a local directory holding the tokenizer.json of ${baseModel} (the base model is not a local directory to read it from)`,
  );
}

function connectTinker(config: CurriculumConfig, name?: string): Promise<TinkerPolicy> {
  const { policy } = config;
  let apiKey: string | undefined;
  if (policy.apiKeyEnv !== undefined) {
    apiKey = process.env[policy.apiKeyEnv];
    if (!apiKey)
      throw new ConfigError(`policy.apiKeyEnv: the environment variable ${policy.apiKeyEnv} is not set`);
  }
  return createTinkerPolicy({
    baseUrl: policy.baseUrl!,
    baseModel: policy.baseModel!,
    tokenizerDir: tokenizerDirOf(policy),
    loraRank: loraRankOf(policy),
    seed: policy.seed,
    name: name ?? config.name,
    ...(apiKey === undefined ? {} : { apiKey }),
  });
}

/** The policy of a fresh run, and the hashes of the data it was built from (the tfjs tokenizer's corpus). */
export async function createRunPolicy(
  config: CurriculumConfig,
  envs: readonly RunEnv[],
): Promise<{ policy: RunPolicy; dataHashes: Record<string, string> }> {
  if (config.policy.kind === 'tinker') {
    return { policy: new TinkerRunPolicy(await connectTinker(config), config), dataHashes: {} };
  }
  const { tokenizer, corpusHash } = await trainTokenizer(config, envs);
  const policy = new TfjsRunPolicy(await createPolicy(config, tokenizer));
  return { policy, dataHashes: { tokenizerCorpus: corpusHash } };
}

/** The policy saved in `dir` (a checkpoint's `policy`, or `policy.init`), ready to train or sample. */
export async function loadRunPolicy(config: CurriculumConfig, dir: string): Promise<RunPolicy> {
  if (config.policy.kind === 'tinker') {
    const policy = new TinkerRunPolicy(await connectTinker(config), config);
    try {
      await policy.loadState(dir);
    } catch (error) {
      policy.dispose();
      throw error;
    }
    return policy;
  }
  const policy = await TfjsPolicy.load(dir, {
    name: config.name,
    samplingSeed: config.seed,
    ...backendOption(config.policy.backend),
  });
  if (config.policy.valueHead && !policy.model.config.valueHead) {
    policy.dispose();
    throw new ConfigError(`policy.valueHead: the checkpoint ${dir} was built without a value head`);
  }
  return new TfjsRunPolicy(policy);
}
