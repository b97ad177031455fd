// TfjsPolicy: the in-process transformer LM behind core's Policy (via `sampler()`) and
// TrainablePolicy contracts. Token in, token out: generation returns ids and logprobs, training
// takes datums of token ids with per-token weights, and losses are summed over tokens. This class
// holds the state (weights, version, optimizer, gradients, sampling rng) and assembles the parts:
// sampling in `policy-sampling.ts`, training in `training-batches.ts` and `training-passes.ts`,
// checkpoints in `checkpoint.ts`.
import {
  type AdamParams,
  adamParamsSchema,
  createRng,
  type Datum,
  type ForwardBackwardOptions,
  type ForwardBackwardResult,
  type ForwardResult,
  forwardBackwardOptionsSchema,
  type GenerateRequest,
  type GenerateResult,
  generateRequestSchema,
  InvalidArgumentError,
  type LossFn,
  type OptimStepResult,
  type Policy,
  parseOrThrow,
  type Rng,
  type TrainablePolicy,
} from '@pilotrl/core';
import type * as tf from '@tensorflow/tfjs-core';
import { AdamW } from './adamw';
import { type BackendInfo, type BackendOptions, initBackend } from './backend';
import { renderChat } from './chat-template';
import { loadCheckpoint, readCheckpoint, writeCheckpoint } from './checkpoint';
import type { GeneratedSequence, GenerateOptions, SamplingSettings } from './generate';
import { type ModelConfig, type ModelConfigInput, TransformerModel } from './model';
import { type CandidateScores, packedLength } from './packed-scoring';
import { choiceTokenIds, sampleFromIds, sampleReplies, scorePackedContinuations } from './policy-sampling';
import { PrefixCache } from './prefix-cache';
import { Tokenizer } from './tokenizer';
import { checkDatums } from './training-batches';
import { forwardBackwardPass, forwardPass, GradientSum } from './training-passes';

export interface TfjsPolicyOptions extends BackendOptions {
  tokenizer: Tokenizer;
  /** Model shape; `vocabSize`, when given, must equal the tokenizer's. */
  model: Omit<ModelConfigInput, 'vocabSize'> & { vocabSize?: number };
  name?: string;
  /** Seed of sampling when a request gives none (default 0). */
  samplingSeed?: number;
  /** Largest number of sequences in one forward pass of generation or scoring (default 32). */
  maxBatch?: number;
  /**
   * Largest number of tokens in one pass of `forward` or `forwardBackward` (default 8192); bigger
   * batches run in chunks. The wasm backend runs out of memory on a whole RL batch (about 16
   * episodes × 20 turns) in one pass.
   */
  maxTrainTokens?: number;
  /**
   * Bytes of prompt keys and values kept for choice requests (default 0: off). A choice prompt that
   * extends one scored before (a plan written edge by edge, an action chosen in the same
   * conversation) then runs only its new tokens; least recently used prompts go first. Its
   * logprobs match an uncached pass to about 1e-6, not bit for bit, and depend on what was cached
   * before: two runs of the same calls are identical only from the same cache state, which
   * `resetCaches()` (called by every agent rollout) restores to empty.
   */
  prefixCacheBytes?: number;
}

/**
 * What a policy shows of its model: the config it was built from. The tensors stay inside this
 * package, so its published declarations need none of tfjs-core's, which do not compile without
 * `skipLibCheck` (see `readWeights` for the values).
 */
export interface TfjsModelInfo {
  readonly config: ModelConfig;
}

export class TfjsPolicy implements TrainablePolicy {
  readonly name: string;
  readonly tokenizer: Tokenizer;
  readonly backend: BackendInfo;
  private readonly net: TransformerModel;
  private currentVersion = 0;
  private readonly options: TfjsPolicyOptions;
  private readonly optimizer = new AdamW();
  private readonly gradients: GradientSum;
  private readonly samplingRng: Rng;
  private samplingCalls = 0;
  private readonly maxBatch: number;
  private readonly maxTrainTokens: number;
  private readonly prefixCache: PrefixCache | undefined;

  /** `initialWeights`, when given, replace the seeded initialisation (see `TransformerModel`). */
  private constructor(
    options: TfjsPolicyOptions,
    backend: BackendInfo,
    initialWeights?: ReadonlyMap<string, tf.Tensor>,
  ) {
    this.options = options;
    this.name = options.name ?? 'tfjs-policy';
    this.tokenizer = options.tokenizer;
    const vocabSize = options.model.vocabSize ?? options.tokenizer.vocabSize;
    if (vocabSize !== options.tokenizer.vocabSize) {
      throw new InvalidArgumentError(
        `model.vocabSize ${vocabSize} differs from the tokenizer's ${options.tokenizer.vocabSize}; omit it to use the tokenizer's`,
      );
    }
    this.net = new TransformerModel({ ...options.model, vocabSize }, initialWeights);
    this.backend = backend;
    this.samplingRng = createRng(options.samplingSeed ?? 0);
    this.maxBatch = options.maxBatch ?? 32;
    this.maxTrainTokens = options.maxTrainTokens ?? 8192;
    if (!Number.isInteger(this.maxTrainTokens) || this.maxTrainTokens < 1) {
      throw new InvalidArgumentError(
        `maxTrainTokens is ${this.maxTrainTokens}; give a positive whole number of tokens per training pass`,
      );
    }
    const prefixCacheBytes = options.prefixCacheBytes ?? 0;
    if (!Number.isInteger(prefixCacheBytes) || prefixCacheBytes < 0) {
      throw new InvalidArgumentError(
        `prefixCacheBytes is ${prefixCacheBytes}; give a whole number of bytes, or 0 to turn the prefix cache off`,
      );
    }
    this.prefixCache =
      prefixCacheBytes === 0 ? undefined : new PrefixCache(this.net.config, prefixCacheBytes);
    this.gradients = new GradientSum(this.net.weights);
  }

  /** Starts the backend (see `initBackend`) and builds a freshly initialised policy. */
  static async create(options: TfjsPolicyOptions): Promise<TfjsPolicy> {
    const backend = await initBackend(options);
    return new TfjsPolicy(options, backend);
  }

  /** Builds a policy from a checkpoint directory written by `saveState`. */
  static async load(
    dir: string,
    options: BackendOptions &
      Pick<
        TfjsPolicyOptions,
        'name' | 'samplingSeed' | 'maxBatch' | 'maxTrainTokens' | 'prefixCacheBytes'
      > = {},
  ) {
    const checkpoint = await readCheckpoint(dir);
    const policy = await TfjsPolicy.create({
      ...options,
      tokenizer: Tokenizer.fromJSON(checkpoint.manifest.tokenizer),
      model: checkpoint.manifest.model,
    });
    await policy.loadState(dir);
    return policy;
  }

  get version(): number {
    return this.currentVersion;
  }

  encode(text: string): number[] {
    return this.tokenizer.encode(text);
  }

  get model(): TfjsModelInfo {
    return this.net;
  }

  /** A copy of every weight's values, by name, in the checkpoint's order. */
  readWeights(): Map<string, Float32Array> {
    return new Map(
      [...this.net.weights].map(([name, weight]) => [name, Float32Array.from(weight.dataSync())]),
    );
  }

  /** Total number of weights. */
  parameterCount(): number {
    let total = 0;
    for (const variable of this.net.weights.values()) total += variable.size;
    return total;
  }

  // ---- sampling (policy-sampling.ts) ----

  sampler(): Policy {
    const currentVersion = () => this.currentVersion;
    return {
      name: this.name,
      get version() {
        return currentVersion();
      },
      generate: (requests, options) => this.generate(requests, options),
      countTokens: (text) => this.tokenizer.encode(text).length,
      choiceTokens: (choices) => this.choiceTokens(choices),
      resetCaches: () => this.resetCaches(),
    };
  }

  /** Tokens `choices` take after the prompt when packed into one sequence (shared prefixes once). */
  choiceTokens(choices: readonly string[]): number {
    return packedLength({ prompt: [], candidates: choiceTokenIds(this.tokenizer, choices) });
  }

  /** Renders each request's messages with the chat template and samples (or chooses) a reply. */
  async generate(
    requests: readonly GenerateRequest[],
    options: { signal?: AbortSignal } = {},
  ): Promise<GenerateResult[]> {
    const resolved = requests.map((r, i) => parseOrThrow(generateRequestSchema, r, `generate request ${i}`));
    const prompts = resolved.map((r) => renderChat(this.tokenizer, r.messages));
    const rngs = resolved.map((r) =>
      r.seed === undefined ? this.samplingRng.fork(this.samplingCalls++) : createRng(r.seed),
    );
    const target = {
      model: this.net,
      tokenizer: this.tokenizer,
      maxBatch: this.maxBatch,
      version: this.currentVersion,
      prefixCache: this.prefixCache,
    };
    return sampleReplies(target, resolved, prompts, rngs, options.signal);
  }

  /** Samples continuations of raw prompt ids (no chat template); used by benchmarks and tools. */
  generateFromIds(
    prompts: readonly (readonly number[])[],
    settings: Omit<SamplingSettings, 'rng'> & { seed?: number },
    options: GenerateOptions = {},
  ): GeneratedSequence[] {
    return sampleFromIds(this.net, this.tokenizer, prompts, settings, options);
  }

  /**
   * Scores many continuations of one prompt in a single packed sequence: per-token model
   * logprobs and the exact distribution of decoding constrained to the continuations.
   */
  scoreContinuations(
    prompt: readonly number[],
    continuations: readonly (readonly number[])[],
  ): CandidateScores {
    return scorePackedContinuations(this.net, prompt, continuations);
  }

  /** Frees the prompt keys and values kept for choice requests (see `prefixCacheBytes`). */
  clearPrefixCache(): void {
    this.prefixCache?.clear();
  }

  /**
   * Core's `Policy.resetCaches`: empties the prefix cache, so that the replies that follow depend
   * only on the weights and the requests (a rollout calls it through `sampler()` when it starts).
   */
  resetCaches(): void {
    this.clearPrefixCache();
  }

  // ---- training (training-batches.ts, training-passes.ts) ----
  // Both passes run the batch in chunks of at most `maxTrainTokens` tokens; gradients accumulate
  // until `optimStep`, so the chunks give the loss, logprobs and update of one pass.

  async forward(datums: readonly Datum[]): Promise<ForwardResult[]> {
    return forwardPass(this.net, checkDatums(this.net.config, datums), this.maxTrainTokens);
  }

  /**
   * Accumulates the gradient of `loss` over `datums`. A `LossFn` is called once per chunk; the
   * policy's own metrics (`loss`, `tokens`, `entropy`, `value_loss`) are sums over the batch, and
   * the loss function's metrics are averaged over chunks.
   */
  async forwardBackward(
    datums: readonly Datum[],
    loss: LossFn | 'cross_entropy',
    options: ForwardBackwardOptions = {},
  ): Promise<ForwardBackwardResult> {
    const { entropyCoef, valueCoef } = parseOrThrow(
      forwardBackwardOptionsSchema,
      options,
      'forwardBackward options',
    );
    const checked = checkDatums(this.net.config, datums);
    return forwardBackwardPass(
      this.net,
      checked,
      { loss, entropyCoef, valueCoef },
      this.maxTrainTokens,
      this.gradients,
    );
  }

  async optimStep(params: AdamParams): Promise<OptimStepResult> {
    const resolved = parseOrThrow(adamParamsSchema, params, 'Adam parameters');
    if (this.gradients.tensors.size === 0) {
      throw new InvalidArgumentError('optimStep: no gradient accumulated; call forwardBackward first');
    }
    const gradNorm = this.optimizer.apply(this.net.weights, this.gradients.tensors, resolved);
    this.prefixCache?.clear();
    this.gradients.clear();
    this.currentVersion += 1;
    return { gradNorm, version: this.currentVersion };
  }

  /** Drops accumulated gradients without applying them. */
  zeroGrad(): void {
    this.gradients.clear();
  }

  // ---- weights (in memory here; on disk in checkpoint.ts) ----

  /**
   * A frozen copy of this policy, made in memory: the same tokenizer, options, model config,
   * version and weights (shared with this policy until either one trains), with its own empty
   * optimizer state and gradients. It is a whole `TrainablePolicy`: a reference or old policy for
   * a loss, a sampler of the weights as they were, or the weights to `restore` later. Dispose it
   * when done.
   */
  snapshot(): TfjsPolicy {
    const copy = new TfjsPolicy({ ...this.options, model: this.net.config }, this.backend, this.net.weights);
    copy.currentVersion = this.currentVersion;
    return copy;
  }

  /** Puts a snapshot's weights back (the version becomes the snapshot's); gradients are kept. */
  restore(snapshot: TfjsPolicy): void {
    this.net.assignWeights(snapshot.net.weights, 'the snapshot');
    this.prefixCache?.clear();
    this.currentVersion = snapshot.version;
  }

  async saveState(dir: string): Promise<void> {
    await writeCheckpoint(dir, {
      model: this.net.config,
      tokenizer: this.tokenizer.toJSON(),
      version: this.currentVersion,
      weights: this.net.weights,
      optimizer: this.optimizer,
    });
  }

  async loadState(dir: string): Promise<void> {
    const checkpoint = await readCheckpoint(dir);
    this.currentVersion = loadCheckpoint(checkpoint, dir, {
      model: this.net.config,
      tokenizer: this.tokenizer.toJSON(),
      weights: this.net.weights,
      optimizer: this.optimizer,
    });
    this.prefixCache?.clear();
    this.zeroGrad();
  }

  /** Frees the weights, optimizer state and gradients. */
  dispose(): void {
    this.prefixCache?.clear();
    this.zeroGrad();
    this.optimizer.dispose();
    this.net.dispose();
  }
}
