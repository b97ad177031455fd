// TfjsPolicy: the in-process transformer LM behind core's Policy (via `sampler()`) and
// TrainablePolicy contracts. Token in, token out: generation returns ids and logprobs, training
// takes datums of token ids with per-token weights, and losses are summed over tokens.
import {
  type AdamParams,
  adamParamsSchema,
  createRng,
  type Datum,
  datumSchema,
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
  type ResolvedGenerateRequest,
  type Rng,
} from '@pilotrl/core';
import * as tf from '@tensorflow/tfjs-core';
import { AdamW } from './adamw';
import { type BackendInfo, type BackendOptions, initBackend } from './backend';
import { renderChat } from './chat-template';
import { loadCheckpoint, readCheckpoint, writeCheckpoint } from './checkpoint';
import {
  type GeneratedSequence,
  type GenerateOptions,
  generateBatch,
  type SamplingSettings,
} from './generate';
import { inScope, type ModelConfigInput, rowEntropy, TransformerModel, targetLogprobs } from './model';
import { type CandidateScores, packedLength, scoreCandidates } from './packed-scoring';
import { tokenChunks } from './token-chunks';
import { END_ID, PAD_ID, Tokenizer } from './tokenizer';

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
}

/** Weights frozen at one moment (old or reference policy); dispose it when done. */
export interface WeightSnapshot {
  readonly version: number;
  readonly tensors: ReadonlyMap<string, tf.Tensor>;
  dispose(): void;
}

export class TfjsPolicy {
  readonly name: string;
  readonly tokenizer: Tokenizer;
  readonly model: TransformerModel;
  readonly backend: BackendInfo;
  private currentVersion = 0;
  private readonly optimizer = new AdamW();
  private readonly gradients = new Map<string, tf.Tensor>();
  private readonly variableNames = new Map<string, string>();
  private readonly samplingRng: Rng;
  private samplingCalls = 0;
  private readonly maxBatch: number;
  private readonly maxTrainTokens: number;

  private constructor(options: TfjsPolicyOptions, backend: BackendInfo) {
    this.name = options.name ?? 'tfjs-policy';
    this.tokenizer = options.tokenizer;
    const vocabSize = options.model.vocabSize ?? options.tokenizer.vocabSize;
    if (vocabSize !== options.tokenizer.vocabSize) {
      throw new InvalidArgumentError(
        `model.vocabSize ${vocabSize} differs from the tokenizer's ${options.tokenizer.vocabSize}; omit it to use the tokenizer's`,
      );
    }
    this.model = new TransformerModel({ ...options.model, vocabSize });
    this.backend = backend;
    this.samplingRng = createRng(options.samplingSeed ?? 0);
    this.maxBatch = options.maxBatch ?? 32;
    this.maxTrainTokens = options.maxTrainTokens ?? 8192;
    if (!Number.isInteger(this.maxTrainTokens) || this.maxTrainTokens < 1) {
      throw new InvalidArgumentError(
        `maxTrainTokens is ${this.maxTrainTokens}; give a positive whole number of tokens per training pass`,
      );
    }
    for (const [name, variable] of this.model.weights) this.variableNames.set(variable.name, name);
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
      Pick<TfjsPolicyOptions, 'name' | 'samplingSeed' | 'maxBatch' | 'maxTrainTokens'> = {},
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

  /** Total number of weights. */
  parameterCount(): number {
    let total = 0;
    for (const variable of this.model.weights.values()) total += variable.size;
    return total;
  }

  // ---- sampling ----

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

  /** Tokens `choices` take after the prompt when packed into one sequence (shared prefixes once). */
  choiceTokens(choices: readonly string[]): number {
    return packedLength({ prompt: [], candidates: this.choiceTokenIds(choices) });
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
    const results = new Array<GenerateResult>(requests.length);
    const free = resolved.flatMap((r, i) => (r.choices === undefined ? [i] : []));
    const constrained = resolved.flatMap((r, i) => (r.choices === undefined ? [] : [i]));
    prompts.forEach((prompt, i) => {
      this.checkPromptFits(prompt, `generate request ${i}`);
    });
    for (const chunk of chunks(free, this.maxBatch)) {
      options.signal?.throwIfAborted();
      const settings = chunk.map((i) => samplingSettings(resolved[i]!, rngs[i]!));
      const outputs = generateBatch(
        this.model,
        this.tokenizer,
        chunk.map((i) => prompts[i]!),
        settings,
      );
      chunk.forEach((i, k) => {
        results[i] = this.freeResult(outputs[k]!, prompts[i]!);
      });
    }
    // Constrained requests are scored in batches of similar packed length, so that short ones are
    // not padded to the longest of a mixed batch; each keeps its own rng, so results do not depend
    // on the order.
    const candidates = new Map(constrained.map((i) => [i, this.choiceTokenIds(resolved[i]!.choices!)]));
    const packed = new Map(
      constrained.map((i) => [
        i,
        this.checkChoicesFit(prompts[i]!, candidates.get(i)!, `generate request ${i}`),
      ]),
    );
    const byLength = [...constrained].sort((a, b) => packed.get(a)! - packed.get(b)!);
    for (const chunk of chunks(byLength, this.maxBatch)) {
      options.signal?.throwIfAborted();
      const scores = scoreCandidates(
        this.model,
        chunk.map((i) => ({
          prompt: prompts[i]!,
          candidates: candidates.get(i)!,
          temperature: resolved[i]!.temperature,
        })),
      );
      chunk.forEach((i, k) => {
        results[i] = this.choiceResult(resolved[i]!, prompts[i]!, candidates.get(i)!, scores[k]!, rngs[i]!);
      });
    }
    return results;
  }

  /** Samples continuations of raw prompt ids (no chat template); used by benchmarks and tools. */
  generateFromIds(
    prompts: readonly (readonly number[])[],
    settings: Omit<SamplingSettings, 'rng'> & { seed?: number },
    options: GenerateOptions = {},
  ): GeneratedSequence[] {
    prompts.forEach((p, i) => {
      this.checkPromptFits(p, `prompt ${i}`);
    });
    const rng = createRng(settings.seed ?? 0);
    return generateBatch(
      this.model,
      this.tokenizer,
      prompts,
      prompts.map((_, i) => ({ ...settings, rng: rng.fork(i) })),
      options,
    );
  }

  /**
   * Scores many continuations of one prompt in a single packed sequence: per-token model
   * logprobs and the exact distribution of decoding constrained to the continuations.
   */
  scoreContinuations(
    prompt: readonly number[],
    continuations: readonly (readonly number[])[],
  ): CandidateScores {
    if (continuations.length === 0 || continuations.some((c) => c.length === 0)) {
      throw new InvalidArgumentError(
        'scoreContinuations needs at least one continuation, each of one token or more',
      );
    }
    const request = { prompt, candidates: continuations };
    this.checkPromptFits(prompt, 'scoreContinuations prompt');
    const length = packedLength(request);
    if (length > this.model.config.contextLength) {
      throw new InvalidArgumentError(
        `prompt + continuations pack to ${length} tokens but the context holds ${this.model.config.contextLength}; score fewer continuations per call`,
      );
    }
    return scoreCandidates(this.model, [request])[0]!;
  }

  private checkPromptFits(prompt: readonly number[], where: string): void {
    const limit = this.model.config.contextLength;
    if (prompt.length === 0 || prompt.length >= limit) {
      throw new InvalidArgumentError(
        `${where}: the prompt has ${prompt.length} tokens but must have 1 to ${limit - 1} (contextLength ${limit}); shorten the history in the prompt`,
      );
    }
  }

  private choiceTokenIds(choices: readonly string[]): number[][] {
    return choices.map((choice) => [...this.tokenizer.encode(choice), END_ID]);
  }

  /** The packed length of prompt + choices, checked against the context. */
  private checkChoicesFit(prompt: readonly number[], candidates: readonly number[][], where: string): number {
    const length = packedLength({ prompt, candidates });
    if (length > this.model.config.contextLength) {
      throw new InvalidArgumentError(
        `${where}: prompt + choices pack to ${length} tokens but the context holds ${this.model.config.contextLength}; offer fewer choices or a shorter prompt`,
      );
    }
    return length;
  }

  private freeResult(output: GeneratedSequence, prompt: readonly number[]): GenerateResult {
    return {
      text: output.text,
      tokenIds: output.tokenIds,
      logprobs: output.logprobs,
      promptTokenIds: [...prompt],
      finishReason: output.finishReason,
      policyVersion: this.currentVersion,
    };
  }

  private choiceResult(
    request: ResolvedGenerateRequest,
    prompt: readonly number[],
    candidates: readonly number[][],
    scores: CandidateScores,
    rng: Rng,
  ): GenerateResult {
    const choices = request.choices!;
    const logprobs = scores.constrainedLogprobs;
    // A repeated choice is one string of the distribution: only its first occurrence is drawn,
    // and every occurrence reports that string's logprob.
    const distinct = choices.map((choice, i) => choices.indexOf(choice) === i);
    // Greedy picks the most likely whole choice; sampling draws from the constrained distribution,
    // which equals sampling token by token within the trie.
    let index = 0;
    if (request.temperature === 0) {
      logprobs.forEach((lp, i) => {
        if (lp > logprobs[index]!) index = i;
      });
    } else {
      index = rng.weightedIndex(logprobs.map((lp, i) => (distinct[i] ? Math.exp(lp) : 0)));
    }
    return {
      text: choices[index]!,
      tokenIds: candidates[index]!,
      logprobs: scores.constrainedTokenLogprobs[index]!,
      allowedTokenIds: allowedAlong(candidates, index),
      promptTokenIds: [...prompt],
      finishReason: 'choice',
      choiceIndex: index,
      choiceLogprobs: logprobs,
      policyVersion: this.currentVersion,
    };
  }

  // ---- training ----
  // Both calls run the batch in chunks of at most `maxTrainTokens` tokens. Losses are sums over
  // tokens and gradients accumulate until `optimStep`, so the chunks give the loss, logprobs and
  // update of one pass.

  async forward(datums: readonly Datum[]): Promise<ForwardResult[]> {
    const checked = this.checkDatums(datums);
    const results: ForwardResult[] = [];
    for (const chunk of tokenChunks(checked, this.maxTrainTokens)) results.push(...this.forwardChunk(chunk));
    return results;
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
    const checked = this.checkDatums(datums);
    const useValue = valueCoef > 0 && checked.some((d) => d.returns !== undefined);
    if (useValue && !this.model.config.valueHead) {
      throw new InvalidArgumentError(
        'forwardBackward: valueCoef > 0 needs a model built with { valueHead: true }',
      );
    }
    const select = loss === 'cross_entropy' ? 'weighted' : 'all';
    // Cross-entropy only computes weighted tokens, so a chunk without any adds nothing.
    const trains = (chunk: readonly Datum[]) => select === 'all' || chunk.some(hasWeight);
    if (!trains(checked)) {
      throw new InvalidArgumentError('every datum has zero weight on every token: nothing to train on');
    }
    const settings = { loss, select, entropyCoef, valueCoef, useValue } as const;
    const result: ForwardBackwardResult = { loss: 0, logprobs: [], metrics: {} };
    const summed: Record<string, number> = { tokens: 0 };
    const lossMetrics: Record<string, number> = {};
    let lossCalls = 0;
    for (const chunk of tokenChunks(checked, this.maxTrainTokens)) {
      if (!trains(chunk)) {
        result.logprobs.push(...chunk.map((d) => new Array<number>(d.tokenIds.length).fill(0)));
        continue;
      }
      const part = this.forwardBackwardChunk(chunk, settings);
      result.loss += part.loss;
      result.logprobs.push(...part.logprobs);
      for (const [key, value] of Object.entries(part.summed)) summed[key] = (summed[key] ?? 0) + value;
      if (part.lossMetrics !== undefined) {
        lossCalls += 1;
        for (const [key, value] of Object.entries(part.lossMetrics)) {
          lossMetrics[key] = (lossMetrics[key] ?? 0) + value;
        }
      }
    }
    for (const [key, value] of Object.entries(lossMetrics)) result.metrics[key] = value / lossCalls;
    Object.assign(result.metrics, summed, { loss: result.loss });
    return result;
  }

  private forwardChunk(datums: Datum[]): ForwardResult[] {
    const batch = this.prepareBatch(datums, 'all');
    try {
      return inScope(() => {
        const { logits, hidden } = this.selectedLogits(batch);
        const logp = targetLogprobs(logits, batch.targets).dataSync();
        const entropy = rowEntropy(logits).dataSync();
        const values = this.model.config.valueHead ? this.model.values(hidden).dataSync() : undefined;
        return batch.datums.map((datum, d) => {
          const n = datum.tokenIds.length;
          const out: ForwardResult = { logprobs: new Array(n).fill(0), entropies: new Array(n).fill(0) };
          if (values !== undefined) out.values = new Array(n).fill(0);
          batch.rowsOf[d]!.forEach((row, t) => {
            if (row < 0) return;
            out.logprobs[t] = logp[row]!;
            out.entropies[t] = entropy[row]!;
            if (out.values !== undefined) out.values[t] = values![row]!;
          });
          return out;
        });
      });
    } finally {
      batch.dispose();
    }
  }

  private forwardBackwardChunk(
    datums: Datum[],
    settings: {
      loss: LossFn | 'cross_entropy';
      select: 'all' | 'weighted';
      entropyCoef: number;
      valueCoef: number;
      useValue: boolean;
    },
  ): ChunkResult {
    const { loss, select, entropyCoef, valueCoef, useValue } = settings;
    const batch = this.prepareBatch(datums, select);
    const summed: Record<string, number> = {};
    let lossMetrics: Record<string, number> | undefined;
    let logprobs: number[][] = [];
    let reported = 0;
    try {
      const { value, grads } = tf.variableGrads(() => {
        const { logits, hidden } = this.selectedLogits(batch);
        const logp = targetLogprobs(logits, batch.targets);
        const logpValues = logp.dataSync();
        logprobs = batch.rowsOf.map((rows) => rows.map((row) => (row < 0 ? 0 : logpValues[row]!)));
        let total: tf.Tensor;
        if (loss === 'cross_entropy') {
          total = tf.neg(tf.sum(tf.mul(logp, batch.weights)));
          reported = -dot(logpValues, batch.weightValues);
        } else {
          const output = loss({ datums: batch.datums, logprobs });
          const coefficients = new Float32Array(batch.targetCount);
          batch.datums.forEach((datum, d) => {
            const grad = output.gradLogprobs[d];
            if (grad === undefined || grad.length !== datum.tokenIds.length) {
              throw new InvalidArgumentError(
                `loss function returned gradLogprobs[${d}] with ${grad?.length ?? 'no'} entries; datum ${d} of its call has ${datum.tokenIds.length} tokens`,
              );
            }
            batch.rowsOf[d]!.forEach((row, t) => {
              if (row >= 0) coefficients[row] = grad[t]!;
            });
          });
          total = tf.sum(tf.mul(logp, tf.tensor1d(coefficients)));
          reported = output.loss;
          lossMetrics = output.metrics ?? {};
        }
        if (entropyCoef > 0) {
          const entropy = tf.sum(tf.mul(rowEntropy(logits), batch.weights));
          const entropyValue = entropy.dataSync()[0]!;
          summed.entropy = entropyValue;
          reported -= entropyCoef * entropyValue;
          total = tf.sub(total, tf.mul(entropy, entropyCoef));
        }
        if (useValue) {
          const error = tf.sub(this.model.values(hidden), batch.returns);
          const valueLoss = tf.div(tf.sum(tf.mul(tf.square(error), batch.returnWeights)), 2);
          const valueLossValue = valueLoss.dataSync()[0]!;
          summed.value_loss = valueLossValue;
          reported += valueCoef * valueLossValue;
          total = tf.add(total, tf.mul(valueLoss, valueCoef));
        }
        return total as tf.Scalar;
      }, this.trainableVariables(useValue));
      value.dispose();
      this.accumulate(grads);
    } finally {
      batch.dispose();
    }
    summed.tokens = batch.weightValues.reduce((n, w) => n + (w !== 0 ? 1 : 0), 0);
    return { loss: reported, logprobs, summed, lossMetrics };
  }

  async optimStep(params: AdamParams): Promise<OptimStepResult> {
    const resolved = parseOrThrow(adamParamsSchema, params, 'Adam parameters');
    if (this.gradients.size === 0) {
      throw new InvalidArgumentError('optimStep: no gradient accumulated; call forwardBackward first');
    }
    const gradNorm = this.optimizer.apply(this.model.weights, this.gradients, resolved);
    tf.dispose([...this.gradients.values()]);
    this.gradients.clear();
    this.currentVersion += 1;
    return { gradNorm, version: this.currentVersion };
  }

  /** Drops accumulated gradients without applying them. */
  zeroGrad(): void {
    tf.dispose([...this.gradients.values()]);
    this.gradients.clear();
  }

  private trainableVariables(withValueHead: boolean): tf.Variable[] {
    return [...this.model.weights.entries()]
      .filter(([name]) => withValueHead || !name.startsWith('value.'))
      .map(([, variable]) => variable);
  }

  private accumulate(grads: tf.NamedTensorMap): void {
    for (const [variableName, grad] of Object.entries(grads)) {
      const name = this.variableNames.get(variableName)!;
      const previous = this.gradients.get(name);
      if (previous === undefined) {
        this.gradients.set(name, grad);
      } else {
        this.gradients.set(name, tf.keep(tf.add(previous, grad)));
        tf.dispose([previous, grad]);
      }
    }
  }

  private selectedLogits(batch: PreparedBatch) {
    const { hidden } = this.model.run(batch.inputs, batch.positions, null);
    const selected = tf.gather(hidden, batch.rows) as tf.Tensor2D;
    const logits = this.model.logits(selected);
    const masked = batch.logitMask ? (tf.add(logits, batch.logitMask) as tf.Tensor2D) : logits;
    return { logits: masked, hidden: selected };
  }

  /** Validates a whole batch before any chunk of it runs, so a bad datum leaves no gradient. */
  private checkDatums(input: readonly Datum[]): Datum[] {
    if (input.length === 0) throw new InvalidArgumentError('training needs at least one datum');
    const datums = input.map((d, i) => parseOrThrow(datumSchema, d, `datum ${i}`));
    const limit = this.model.config.contextLength;
    const vocab = this.model.config.vocabSize;
    datums.forEach((datum, i) => {
      if (datum.tokenIds.length > limit) {
        throw new InvalidArgumentError(
          `datum ${i} has ${datum.tokenIds.length} tokens; the context holds ${limit}`,
        );
      }
      const bad = datum.tokenIds.find((id) => id >= vocab);
      if (bad !== undefined)
        throw new InvalidArgumentError(`datum ${i} has token id ${bad}, outside the vocabulary of ${vocab}`);
      const badAllowed = datum.allowedTokenIds?.flatMap((ids) => ids ?? []).find((id) => id >= vocab);
      if (badAllowed !== undefined) {
        throw new InvalidArgumentError(
          `datum ${i} allows token id ${badAllowed}, outside the vocabulary of ${vocab}`,
        );
      }
    });
    return datums;
  }

  /**
   * Right-pads checked datums into [batch, maxLength-1] inputs. `select` picks which predictions
   * are computed: every real token ('all') or only those with a non-zero weight ('weighted').
   */
  private prepareBatch(datums: Datum[], select: 'all' | 'weighted'): PreparedBatch {
    const time = Math.max(...datums.map((d) => d.tokenIds.length)) - 1;
    const ids = new Int32Array(datums.length * time).fill(PAD_ID);
    const positions = new Int32Array(datums.length * time);
    const rows: number[] = [];
    const targets: number[] = [];
    const weightValues: number[] = [];
    const returns: number[] = [];
    const returnWeights: number[] = [];
    /** Rows whose prediction is restricted to a set of ids, with that set. */
    const restricted: { row: number; allowed: readonly number[] }[] = [];
    const rowsOf = datums.map((datum, b) => {
      const mapping: number[] = [-1];
      for (let t = 0; t < time; t++) positions[b * time + t] = t;
      datum.tokenIds.slice(0, -1).forEach((id, t) => {
        ids[b * time + t] = id;
      });
      for (let t = 1; t < datum.tokenIds.length; t++) {
        const weight = datum.weights[t]!;
        if (select === 'weighted' && weight === 0) {
          mapping.push(-1);
          continue;
        }
        const allowed = datum.allowedTokenIds?.[t];
        if (allowed != null) restricted.push({ row: rows.length, allowed });
        mapping.push(rows.length);
        rows.push(b * time + t - 1);
        targets.push(datum.tokenIds[t]!);
        weightValues.push(weight);
        returns.push(datum.returns?.[t] ?? 0);
        returnWeights.push(datum.returns === undefined ? 0 : weight);
      }
      return mapping;
    });
    const tensors = {
      inputs: tf.tensor2d(ids, [datums.length, time], 'int32'),
      positions: tf.tensor2d(positions, [datums.length, time], 'int32'),
      rows: tf.tensor1d(rows, 'int32'),
      targets: tf.tensor1d(targets, 'int32'),
      weights: tf.tensor1d(weightValues),
      returns: tf.tensor1d(returns),
      returnWeights: tf.tensor1d(returnWeights),
      logitMask:
        restricted.length > 0 ? logitMask(restricted, rows.length, this.model.config.vocabSize) : null,
    };
    return {
      ...tensors,
      datums,
      rowsOf,
      weightValues,
      targetCount: rows.length,
      dispose: () => tf.dispose(Object.values(tensors).filter((t) => t !== null)),
    };
  }

  // ---- weights ----

  /** Copies the current weights (e.g. the old policy before an update, or a frozen reference). */
  snapshot(): WeightSnapshot {
    const tensors = new Map<string, tf.Tensor>();
    for (const [name, variable] of this.model.weights) tensors.set(name, tf.keep(variable.clone()));
    return { version: this.currentVersion, tensors, dispose: () => tf.dispose([...tensors.values()]) };
  }

  /** Puts snapshot weights back (the version becomes the snapshot's). */
  restore(snapshot: WeightSnapshot): void {
    for (const [name, variable] of this.model.weights) {
      const tensor = snapshot.tensors.get(name);
      if (tensor === undefined || !tf.util.arraysEqual(tensor.shape, variable.shape)) {
        throw new InvalidArgumentError(
          `snapshot does not fit this model: weight ${name} is missing or differs in shape`,
        );
      }
      variable.assign(tensor);
    }
    this.currentVersion = snapshot.version;
  }

  async saveState(dir: string): Promise<void> {
    await writeCheckpoint(dir, {
      model: this.model.config,
      tokenizer: this.tokenizer.toJSON(),
      version: this.currentVersion,
      weights: this.model.weights,
      optimizer: this.optimizer,
    });
  }

  async loadState(dir: string): Promise<void> {
    const checkpoint = await readCheckpoint(dir);
    this.currentVersion = loadCheckpoint(checkpoint, dir, {
      model: this.model.config,
      tokenizer: this.tokenizer.toJSON(),
      weights: this.model.weights,
      optimizer: this.optimizer,
    });
    this.zeroGrad();
  }

  /** Frees the weights, optimizer state and gradients. */
  dispose(): void {
    this.zeroGrad();
    this.optimizer.dispose();
    this.model.dispose();
  }
}

interface PreparedBatch {
  inputs: tf.Tensor2D;
  positions: tf.Tensor2D;
  rows: tf.Tensor1D;
  targets: tf.Tensor1D;
  weights: tf.Tensor1D;
  returns: tf.Tensor1D;
  returnWeights: tf.Tensor1D;
  /** Added to the logits: a large negative value outside each restricted row's allowed ids. */
  logitMask: tf.Tensor2D | null;
  datums: Datum[];
  /** Per datum, per token: the computed row holding its prediction, or -1. */
  rowsOf: number[][];
  weightValues: number[];
  targetCount: number;
  dispose(): void;
}

interface ChunkResult {
  loss: number;
  logprobs: number[][];
  /** Metrics that add up over chunks. */
  summed: Record<string, number>;
  /** The loss function's own metrics, when it is a function. */
  lossMetrics: Record<string, number> | undefined;
}

/**
 * Per token of candidates[chosen], the distinct next tokens of the candidates that share its
 * prefix so far: the set constrained decoding picked that token from.
 */
function allowedAlong(candidates: readonly (readonly number[])[], chosen: number): number[][] {
  const path = candidates[chosen]!;
  let sharing = candidates;
  return path.map((token, depth) => {
    const allowed = [...new Set(sharing.flatMap((c) => (c.length > depth ? [c[depth]!] : [])))];
    sharing = sharing.filter((c) => c[depth] === token);
    return allowed;
  });
}

/** Logit offsets [rows, vocab]: 0 where allowed (and on unrestricted rows), -1e9 elsewhere. */
function logitMask(
  restricted: readonly { row: number; allowed: readonly number[] }[],
  rows: number,
  vocab: number,
): tf.Tensor2D {
  const mask = new Float32Array(rows * vocab);
  for (const { row, allowed } of restricted) {
    mask.fill(-1e9, row * vocab, (row + 1) * vocab);
    for (const id of allowed) mask[row * vocab + id] = 0;
  }
  return tf.tensor2d(mask, [rows, vocab]);
}

/** Whether a datum trains on at least one token. */
function hasWeight(datum: Datum): boolean {
  return datum.weights.some((w) => w !== 0);
}

function samplingSettings(request: ResolvedGenerateRequest, rng: Rng): SamplingSettings {
  return {
    maxTokens: request.maxTokens,
    temperature: request.temperature,
    topP: request.topP,
    stop: request.stop,
    rng,
  };
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let total = 0;
  for (let i = 0; i < a.length; i++) total += a[i]! * b[i]!;
  return total;
}
