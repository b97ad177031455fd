// HfPolicy: a pretrained Hugging Face decoder (Llama, Qwen3) behind core's TrainablePolicy and, via
// `sampler()`, Policy, optionally with LoRA adapters. Training shares TfjsPolicy's passes
// (`training-passes.ts`: datums, chunks, cross-entropy or a LossFn, summed losses, gradients kept
// until `optimStep`) and its AdamW; sampling renders chat messages with the model's own template
// (Qwen3's with thinking off unless asked) and decodes with the KV cache (`hf-generate.ts`) or
// scores choices (`hf-choices.ts`); states are saved by `hf-policy-state.ts`.
import { basename, resolve } from 'node:path';
import {
  type AdamParams,
  adamParamsSchema,
  type ChatMessage,
  CheckpointError,
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
import { AdamW } from '../adamw';
import { type BackendInfo, type BackendOptions, initBackend } from '../backend';
import { choiceResult } from '../policy-sampling';
import { checkDatums } from '../training-batches';
import { forwardBackwardPass, forwardPass, GradientSum } from '../training-passes';
import type { BpeTokenizer } from './bpe-tokenizer';
import type { HfChatTemplate } from './hf-chat-template';
import { hfChoiceIds, scoreHfChoices } from './hf-choices';
import type { HfDecoderConfig } from './hf-config';
import { sampleHfSequence } from './hf-generate';
import { type HfPolicyIdentity, readHfPolicyState, writeHfPolicyState } from './hf-policy-state';
import type { HfDecoderModel } from './llama';
import { type LoraOptions, loraOptionsSchema } from './lora';
import { openHfPretrained } from './pretrained';

export interface HfPolicyOptions extends BackendOptions {
  /** LoRA adapters to train (the base weights stay frozen); without, every weight trains. */
  lora?: LoraOptions;
  /** Default `hf:<name of the model directory>`. */
  name?: string;
  /** Seed of sampling when a request gives none (default 0). */
  samplingSeed?: number;
  /** Qwen3: let the model think before it replies (default false: an empty thinking block). */
  enableThinking?: boolean;
  /** Largest number of tokens in one pass of `forward` or `forwardBackward` (default 2048). */
  maxTrainTokens?: number;
  /** Largest number of choices scored in one pass (default 8). */
  maxBatch?: number;
}

export class HfPolicy implements TrainablePolicy {
  readonly name: string;
  readonly tokenizer: BpeTokenizer;
  readonly chatTemplate: HfChatTemplate;
  readonly backend: BackendInfo;
  private readonly net: HfDecoderModel;
  private readonly identity: HfPolicyIdentity;
  private readonly endOfTurnId: number;
  private readonly optimizer = new AdamW();
  private readonly gradients: GradientSum;
  private readonly samplingRng: Rng;
  private readonly enableThinking: boolean;
  private readonly maxTrainTokens: number;
  private readonly maxBatch: number;
  private samplingCalls = 0;
  private currentVersion = 0;

  private constructor(
    parts: { dir: string; model: HfDecoderModel; tokenizer: BpeTokenizer; chatTemplate: HfChatTemplate },
    lora: HfPolicyIdentity['lora'],
    options: HfPolicyOptions,
    backend: BackendInfo,
  ) {
    this.net = parts.model;
    this.tokenizer = parts.tokenizer;
    this.chatTemplate = parts.chatTemplate;
    this.backend = backend;
    this.name = options.name ?? `hf:${basename(parts.dir)}`;
    this.identity = { baseDir: parts.dir, baseConfig: parts.model.config, lora };
    // loadHfPretrained has checked that the tokenizer has the end-of-turn token.
    this.endOfTurnId = parts.tokenizer.tokenId(parts.chatTemplate.endOfTurn)!;
    if (lora !== null) this.net.addLora(lora);
    this.gradients = new GradientSum(this.net.trainableWeights);
    this.samplingRng = createRng(options.samplingSeed ?? 0);
    this.enableThinking = options.enableThinking ?? false;
    this.maxTrainTokens = positiveWhole(options.maxTrainTokens ?? 2048, 'maxTrainTokens');
    this.maxBatch = positiveWhole(options.maxBatch ?? 8, 'maxBatch');
  }

  /**
   * Starts the backend (see `initBackend`), opens the Llama or Qwen3 model in `dir` (see
   * `loadHfPretrained`) and, with `options.lora`, adds LoRA adapters to it.
   */
  static async load(dir: string, options: HfPolicyOptions = {}): Promise<HfPolicy> {
    const lora =
      options.lora === undefined ? null : parseOrThrow(loraOptionsSchema, options.lora, 'LoRA options');
    const backend = await initBackend(options);
    const absolute = resolve(dir);
    const { model, tokenizer, chatTemplate } = await openHfPretrained(absolute);
    try {
      return new HfPolicy({ dir: absolute, model, tokenizer, chatTemplate }, lora, options, backend);
    } catch (error) {
      model.dispose();
      throw error;
    }
  }

  get version(): number {
    return this.currentVersion;
  }

  /** The model directory the policy was loaded from, absolute. */
  get baseDir(): string {
    return this.identity.baseDir;
  }

  /** The LoRA options the policy trains with (defaults filled in), or null when every weight trains. */
  get lora(): HfPolicyIdentity['lora'] {
    return this.identity.lora;
  }

  /**
   * A supervised datum of `response` after chat `prompt`: the prompt as the sampler renders it
   * (weights 0), then the response and the end-of-turn token (weights 1).
   */
  replyDatum(prompt: readonly ChatMessage[], response: string): Datum {
    const promptIds = this.renderPrompt(prompt);
    const tokenIds = [...promptIds, ...this.tokenizer.encode(response), this.endOfTurnId];
    return { tokenIds, weights: tokenIds.map((_, i) => (i < promptIds.length ? 0 : 1)) };
  }

  get config(): HfDecoderConfig {
    return this.net.config;
  }

  encode(text: string): number[] {
    return this.tokenizer.encode(text);
  }

  /** The prompt ids of chat `messages`: the model's chat template, ending with the reply's opening. */
  renderPrompt(messages: readonly ChatMessage[]): number[] {
    return this.tokenizer.encode(this.chatTemplate.render(messages, { enableThinking: this.enableThinking }));
  }

  /** A copy of every trained weight's values by name (the LoRA adapters with LoRA). */
  readTrainableWeights(): Map<string, Float32Array> {
    return new Map(
      [...this.net.trainableWeights].map(([name, weight]) => [name, Float32Array.from(weight.dataSync())]),
    );
  }

  // ---- training (the passes TfjsPolicy runs, on this model) ----

  async forward(datums: readonly Datum[]): Promise<ForwardResult[]> {
    return forwardPass(this.net, this.checkDatums(datums), this.maxTrainTokens);
  }

  /**
   * Accumulates the gradient of `loss` over `datums` in the trained weights. A `LossFn` is called
   * once per chunk of `maxTrainTokens` tokens. `valueCoef` needs a value head, which these models lack.
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
    const checked = this.checkDatums(datums);
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
    const gradNorm = this.optimizer.apply(this.net.trainableWeights, this.gradients.tensors, resolved);
    this.gradients.clear();
    this.currentVersion += 1;
    return { gradNorm, version: this.currentVersion };
  }

  /** Drops accumulated gradients without applying them. */
  zeroGrad(): void {
    this.gradients.clear();
  }

  private checkDatums(datums: readonly Datum[]): Datum[] {
    const { maxPositions, vocabSize } = this.net.config;
    return checkDatums({ contextLength: maxPositions, vocabSize }, datums);
  }

  // ---- sampling (hf-generate.ts, hf-choices.ts) ----

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
    };
  }

  /** Tokens `choices` take after the prompt: each is scored on its own, so the longest one's. */
  choiceTokens(choices: readonly string[]): number {
    return Math.max(0, ...hfChoiceIds(this.tokenizer, this.endOfTurnId, choices).map((c) => c.length));
  }

  /**
   * Renders each request's messages with the chat template and samples a reply, which ends at the
   * end of the turn (or an eos id), or chooses one of its `choices`. Requests run one at a time.
   */
  async generate(
    requests: readonly GenerateRequest[],
    options: { signal?: AbortSignal } = {},
  ): Promise<GenerateResult[]> {
    const resolved = requests.map((r, i) => parseOrThrow(generateRequestSchema, r, `generate request ${i}`));
    const prompts = resolved.map((r) => this.renderPrompt(r.messages));
    const choiceIds = resolved.map((r) =>
      r.choices === undefined ? undefined : hfChoiceIds(this.tokenizer, this.endOfTurnId, r.choices),
    );
    const limit = this.net.config.maxPositions;
    prompts.forEach((prompt, i) => {
      const longest = Math.max(1, ...(choiceIds[i] ?? []).map((c) => c.length));
      if (prompt.length + longest > limit) {
        throw new InvalidArgumentError(
          `generate request ${i}: the prompt has ${prompt.length} tokens and its reply needs at least ${longest} more, but the model holds ${limit} positions; shorten the history in the prompt`,
        );
      }
    });
    const rngs = resolved.map((r) =>
      r.seed === undefined ? this.samplingRng.fork(this.samplingCalls++) : createRng(r.seed),
    );
    const version = this.currentVersion;
    const stopIds = [...new Set([this.endOfTurnId, ...this.net.config.eosTokenIds])];
    const results: GenerateResult[] = [];
    for (const [i, request] of resolved.entries()) {
      options.signal?.throwIfAborted();
      const prompt = prompts[i]!;
      const candidates = choiceIds[i];
      if (candidates !== undefined) {
        const scores = await scoreHfChoices(this.net, prompt, candidates, request.temperature, this.maxBatch);
        results.push(choiceResult(request, prompt, candidates, scores, rngs[i]!, version));
        continue;
      }
      const { maxTokens, temperature, topP, stop } = request;
      const settings = { maxTokens, temperature, topP, stop, rng: rngs[i]! };
      const output = await sampleHfSequence(
        this.net,
        this.tokenizer,
        prompt,
        settings,
        stopIds,
        options.signal,
      );
      results.push({ ...output, promptTokenIds: [...prompt], policyVersion: version });
    }
    return results;
  }

  // ---- state (hf-policy-state.ts) ----

  /** Writes the trained weights, AdamW's state, the version and what they were trained on. */
  async saveState(dir: string): Promise<void> {
    await writeHfPolicyState(dir, this.stateContents());
  }

  /**
   * Reads a state written by `saveState` of a policy on the same model directory with the same
   * LoRA options; anything else is refused with a `CheckpointError`. Accumulated gradients are dropped.
   */
  async loadState(dir: string): Promise<void> {
    try {
      this.currentVersion = await readHfPolicyState(dir, this.stateContents());
    } catch (error) {
      if (CheckpointError.isInstance(error)) throw error;
      throw new CheckpointError(`could not load the HfPolicy state in ${dir}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    this.zeroGrad();
  }

  private stateContents() {
    return {
      ...this.identity,
      version: this.currentVersion,
      weights: this.net.trainableWeights,
      optimizer: this.optimizer,
    };
  }

  /** Frees the weights, adapters, optimizer state and gradients. */
  dispose(): void {
    this.zeroGrad();
    this.optimizer.dispose();
    this.net.dispose();
  }
}

function positiveWhole(value: number, option: string): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new InvalidArgumentError(`${option} is ${value}; give a positive whole number`);
  }
  return value;
}
