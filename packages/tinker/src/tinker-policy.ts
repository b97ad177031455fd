// TinkerPolicy: core's TrainablePolicy over the Tinker training API (hosted Tinker, SkyRL's open
// server). The server holds the weights and runs every pass; this class keeps the client's side:
// the session, the model id and its seq_id counter (requests are submitted in counter order, and a
// retried submission reuses its seq_id, which the server treats as the same request), the policy
// version, the sampler weights per version, and the local tokenizer. Datums are mapped to Tinker's
// shifted layout in wire/tinker-datum.ts; losses are chosen in losses.ts; sampling is in
// tinker-sampler.ts; checkpoints are manifests that name server-side state (checkpoint-manifest.ts).
import {
  type AdamParams,
  adamParamsSchema,
  type ChatMessage,
  type Datum,
  datumSchema,
  type ForwardBackwardOptions,
  type ForwardBackwardResult,
  type ForwardResult,
  forwardBackwardOptionsSchema,
  InvalidArgumentError,
  type LossFn,
  type OptimStepResult,
  type Policy,
  parseOrThrow,
  type TrainablePolicy,
} from '@pilotrl/core';
import { z } from 'zod';
import { type ApiClient, createApiClient, type FutureResult } from './api-client';
import { type ChatRenderer, chatMlRenderer, replyDatum } from './chat-renderer';
import { readManifest, writeManifest } from './checkpoint-manifest';
import { TinkerRequestError } from './errors';
import { type BuiltinLoss, type BuiltinLossName, builtinLossOf, surrogateDatums } from './losses';
import {
  type ResolvedTinkerPolicyOptions,
  type TinkerPolicyOptions,
  tinkerPolicyOptionsSchema,
} from './options';
import { openSession, type TinkerSession } from './session';
import { type SamplerHost, TinkerSampler, type TinkerSamplerOptions } from './tinker-sampler';
import { loadTokenizer, type TextTokenizer } from './tokenizer';
import { checkTokenizerFits } from './tokenizer-check';
import {
  createModelResultSchema,
  createModelSchema,
  futureSchema,
  optimStepResultSchema,
  weightsPathResultSchema,
} from './wire/json-schemas';
import { decodeForwardBackwardOutput, encodeForwardBackwardRequest } from './wire/proto-codec';
import { fromTinkerPerToken, type TinkerLossInputs, toTinkerDatum } from './wire/tinker-datum';

const LOSS_INPUTS: Record<BuiltinLoss['name'], TinkerLossInputs[]> = {
  cross_entropy: ['weights'],
  importance_sampling: ['weights', 'logprobs', 'advantages'],
  ppo: ['weights', 'logprobs', 'advantages'],
};

/** One pass's per-datum outputs, aligned with our tokenIds. */
interface PassOutput {
  logprobs: number[][];
  elementwiseLoss: number[][];
  metrics: Record<string, number>;
}

export class TinkerPolicy implements TrainablePolicy {
  readonly name: string;
  readonly tokenizer: TextTokenizer;
  readonly renderer: ChatRenderer;
  /** The session's id on the server. */
  readonly sessionId: string;
  private readonly api: ApiClient;
  private readonly session: TinkerSession;
  private readonly options: ResolvedTinkerPolicyOptions;
  private currentModelId: string;
  private lastSeqId = 0;
  private currentVersion = 0;
  /** Submissions run one after another, so seq_ids reach the server in order. */
  private submissions: Promise<unknown> = Promise.resolve();
  private samplingSeqId = 0;
  private readonly samplerSessions = new Map<number, Promise<string>>();
  private closed = false;

  private constructor(parts: {
    options: ResolvedTinkerPolicyOptions;
    api: ApiClient;
    session: TinkerSession;
    modelId: string;
    tokenizer: TextTokenizer;
    renderer: ChatRenderer;
  }) {
    this.options = parts.options;
    this.name = parts.options.name ?? `tinker:${parts.options.baseModel}`;
    this.api = parts.api;
    this.session = parts.session;
    this.sessionId = parts.session.id;
    this.currentModelId = parts.modelId;
    this.tokenizer = parts.tokenizer;
    this.renderer = parts.renderer;
  }

  /** Opens a session on the server, creates a model (LoRA of `loraRank`, or full when 0) and loads the tokenizer. */
  static async create(options: TinkerPolicyOptions): Promise<TinkerPolicy> {
    const resolved = parseOrThrow(tinkerPolicyOptionsSchema, options, 'Tinker policy options');
    const tokenizer = await loadTokenizer(resolved.tokenizerDir);
    const renderer = (options.chatRenderer ?? chatMlRenderer)(tokenizer);
    const api = createApiClient({ ...resolved, apiKey: resolved.apiKey });
    const session = await openSession(api, {
      baseModel: resolved.baseModel,
      heartbeatMs: resolved.heartbeatMs,
    });
    try {
      if (resolved.checkTokenizer) await checkTokenizerFits(api, resolved.baseModel, tokenizer);
      const modelId = await createModel(api, session.id, resolved);
      return new TinkerPolicy({ options: resolved, api, session, modelId, tokenizer, renderer });
    } catch (error) {
      session.close();
      throw error;
    }
  }

  get version(): number {
    return this.currentVersion;
  }

  /** The server's id of the model this policy trains (a new one after `loadState`). */
  get modelId(): string {
    return this.currentModelId;
  }

  encode(text: string): number[] {
    return this.tokenizer.encode(text);
  }

  /** `reply` to `messages` as a supervised datum in this policy's tokens, rendered as its sampler renders prompts. */
  replyDatum(messages: readonly ChatMessage[], reply: string): Datum {
    return replyDatum(this.renderer, this.tokenizer, messages, reply);
  }

  /** Stops the heartbeat; the server frees the model once the session goes stale. */
  close(): void {
    this.closed = true;
    this.session.close();
  }

  async forward(datums: readonly Datum[], options: { signal?: AbortSignal } = {}): Promise<ForwardResult[]> {
    const checked = this.checkDatums(datums);
    const output = await this.pass(checked, { name: 'cross_entropy' }, true, options.signal);
    // Tinker returns the logprob of each target only, not the distribution: no entropies.
    return output.logprobs.map((logprobs) => ({ logprobs }));
  }

  async forwardBackward(
    datums: readonly Datum[],
    loss: LossFn | BuiltinLossName,
    options: ForwardBackwardOptions & { signal?: AbortSignal } = {},
  ): Promise<ForwardBackwardResult> {
    const { entropyCoef, valueCoef } = parseOrThrow(
      forwardBackwardOptionsSchema,
      { entropyCoef: options.entropyCoef, valueCoef: options.valueCoef },
      'forwardBackward options',
    );
    if (entropyCoef !== 0 || valueCoef !== 0) {
      throw new InvalidArgumentError(
        'The Tinker API has no entropy bonus or value head: entropyCoef and valueCoef must be 0.',
      );
    }
    const checked = this.checkDatums(datums);
    const builtin = builtinLossOf(loss);
    if (builtin !== undefined) {
      const output = await this.pass(checked, builtin, false, options.signal);
      const total = output.elementwiseLoss.reduce((sum, row) => sum + row.reduce((a, b) => a + b, 0), 0);
      return { loss: total, logprobs: output.logprobs, metrics: output.metrics };
    }
    // Both passes take their place in the request order now, so that a request started meanwhile
    // (an optimStep submitted together with this) runs after them; the second one's body waits for
    // the first one's logprobs.
    const lossFn = loss as LossFn;
    const current = this.pass(checked, { name: 'cross_entropy' }, true, options.signal);
    const computed = current.then(({ logprobs }) => {
      const output = lossFn({ datums: checked, logprobs });
      return { output, surrogate: surrogateDatums(checked, logprobs, output.gradLogprobs) };
    });
    const applied = this.pass(
      computed.then(({ surrogate }) => surrogate),
      { name: 'importance_sampling' },
      false,
      options.signal,
    );
    const [{ output }, appliedOutput] = await Promise.all([computed, applied]);
    return {
      loss: output.loss,
      logprobs: appliedOutput.logprobs,
      metrics: { ...appliedOutput.metrics, ...output.metrics },
    };
  }

  async optimStep(params: AdamParams, options: { signal?: AbortSignal } = {}): Promise<OptimStepResult> {
    const adam = parseOrThrow(adamParamsSchema, params, 'Adam parameters');
    const result = await this.modelRequest('optim_step', false, options.signal, (seqId) => ({
      model_id: this.currentModelId,
      seq_id: seqId,
      adam_params: {
        learning_rate: adam.learningRate,
        beta1: adam.beta1,
        beta2: adam.beta2,
        eps: adam.eps,
        weight_decay: adam.weightDecay,
        // SkyRL 0.4.0's AdamParams has no such field and ignores it; the hosted service clips.
        ...(adam.gradClipNorm === undefined ? {} : { grad_clip_norm: adam.gradClipNorm }),
      },
    }));
    const metrics = parseOrThrow(optimStepResultSchema, parseJson(result), 'optim_step result').metrics ?? {};
    this.currentVersion++;
    const gradNorm = metrics['skyrl.ai/grad_norm'] ?? metrics.grad_norm ?? metrics['optimizer/grad_norm'];
    return { gradNorm: gradNorm ?? Number.NaN, version: this.currentVersion };
  }

  /**
   * A sampler on this policy's weights. By default it follows the policy: each `generate` samples
   * from the weights of the current version (synced to the server's sampler when the version is
   * new). With `follow: false` it keeps the weights of the version it was made at, and refuses to
   * generate once the policy is more than `maxStaleness` versions ahead (StaleSamplerError).
   */
  sampler(options: TinkerSamplerOptions = {}): Policy {
    return new TinkerSampler(this.samplerHost(), options);
  }

  /**
   * A sampler on persistent sampler weights (`saveForSampler`'s path, also from an earlier run),
   * which reports `version` as the version that produced its samples.
   */
  samplerAt(path: string, version: number): Policy {
    const checkedPath = parseOrThrow(
      z.string().regex(/^tinker:\/\/[^/]+\/.+$/),
      path,
      'sampler weights path',
    );
    const checkedVersion = parseOrThrow(z.number().int().nonnegative(), version, 'sampler weights version');
    return new TinkerSampler(this.samplerHost(), {}, { path: checkedPath, version: checkedVersion });
  }

  private samplerHost(): SamplerHost {
    return {
      name: this.name,
      version: () => this.currentVersion,
      samplingSessionFor: (version) => this.samplingSessionFor(version),
      nextSamplingSeqId: () => ++this.samplingSeqId,
      tokenizer: this.tokenizer,
      renderer: this.renderer,
      api: this.api,
    };
  }

  /** Saves weights and optimizer state on the server, and a manifest naming them in `dir`. */
  async saveState(dir: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    const name = `v${this.currentVersion}_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
    const result = await this.modelRequest('save_weights', false, options.signal, (seqId) => ({
      model_id: this.currentModelId,
      path: name,
      seq_id: seqId,
      type: 'save_weights',
    }));
    const path = parseOrThrow(weightsPathResultSchema, parseJson(result), 'save_weights result').path;
    if (!path) throw new InvalidArgumentError('save_weights answered without a path');
    await writeManifest(dir, {
      format: 'pilotrl-tinker-checkpoint',
      formatVersion: 1,
      tinkerPath: path,
      baseUrl: this.options.baseUrl,
      baseModel: this.options.baseModel,
      loraRank: this.options.loraRank,
      policyVersion: this.currentVersion,
      savedAt: new Date().toISOString(),
    });
  }

  /**
   * Resumes from the state `saveState(dir)` saved: the server allows loading only as a model's first
   * request, so a model that has run any request is replaced by a fresh one (same base model and
   * rank), which loads the weights and the optimizer state.
   */
  async loadState(dir: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    const manifest = await readManifest(dir);
    if (manifest.baseModel !== this.options.baseModel || manifest.loraRank !== this.options.loraRank) {
      throw new InvalidArgumentError(
        `${dir} holds a checkpoint of ${manifest.baseModel} (LoRA rank ${manifest.loraRank}), but this policy trains ` +
          `${this.options.baseModel} (rank ${this.options.loraRank})`,
      );
    }
    await this.submissions;
    if (this.lastSeqId > 0) {
      this.currentModelId = await createModel(this.api, this.sessionId, this.options);
      this.lastSeqId = 0;
    }
    await this.modelRequest('load_weights', false, options.signal, (seqId) => ({
      model_id: this.currentModelId,
      path: manifest.tinkerPath,
      optimizer: true,
      seq_id: seqId,
      type: 'load_weights',
    }));
    this.currentVersion = manifest.policyVersion;
    this.samplerSessions.clear();
  }

  /**
   * Saves the current weights for sampling under `name` on the server (persistent, unlike the
   * per-version sync of `sampler()`), and returns their `tinker://…/sampler_weights/…` path.
   */
  async saveForSampler(name: string, options: { signal?: AbortSignal } = {}): Promise<string> {
    const checkedName = parseOrThrow(
      z.string().regex(/^[A-Za-z0-9_-]{1,255}$/),
      name,
      'sampler weights name',
    );
    const result = await this.modelRequest('save_weights_for_sampler', false, options.signal, (seqId) => ({
      model_id: this.currentModelId,
      path: checkedName,
      seq_id: seqId,
      type: 'save_weights_for_sampler',
    }));
    const path = parseOrThrow(
      weightsPathResultSchema,
      parseJson(result),
      'save_weights_for_sampler result',
    ).path;
    if (!path) throw new InvalidArgumentError('save_weights_for_sampler answered without a path');
    return path;
  }

  private samplingSessionFor(version: number): Promise<string> {
    let session = this.samplerSessions.get(version);
    if (session === undefined) {
      if (version !== this.currentVersion) {
        return Promise.reject(
          new InvalidArgumentError(
            `The weights of version ${version} were not synced for sampling and are gone`,
          ),
        );
      }
      const samplingSeqId = ++this.samplingSeqId;
      session = this.modelRequest('save_weights_for_sampler', false, undefined, (seqId) => ({
        model_id: this.currentModelId,
        sampling_session_seq_id: samplingSeqId,
        seq_id: seqId,
        type: 'save_weights_for_sampler',
      })).then((result) => {
        const id = parseOrThrow(
          weightsPathResultSchema,
          parseJson(result),
          'save_weights_for_sampler result',
        ).sampling_session_id;
        if (!id)
          throw new InvalidArgumentError('save_weights_for_sampler answered without a sampling_session_id');
        return id;
      });
      // A failed sync is not cached: the next generate tries again.
      session.catch(() => this.samplerSessions.delete(version));
      this.samplerSessions.set(version, session);
    }
    return session;
  }

  private checkDatums(datums: readonly Datum[]): Datum[] {
    if (this.closed) throw new InvalidArgumentError(`${this.name} is closed`);
    if (datums.length === 0) throw new InvalidArgumentError('No datums: give at least one');
    return datums.map((datum, d) => {
      const parsed = parseOrThrow(datumSchema, datum, `datum ${d}`);
      if (parsed.allowedTokenIds?.some((allowed) => allowed !== null)) {
        throw new InvalidArgumentError(
          `datum ${d} has allowedTokenIds: the Tinker API scores tokens over the whole vocabulary only`,
        );
      }
      const outside = parsed.tokenIds.findIndex((id) => id >= this.tokenizer.vocabSize);
      if (outside >= 0) {
        throw new InvalidArgumentError(
          `datum ${d}: token ${outside} has id ${parsed.tokenIds[outside]}, outside the vocabulary ` +
            `(${this.tokenizer.vocabSize} ids); the server would not reject it but score garbage.`,
        );
      }
      return parsed;
    });
  }

  /**
   * A forward (`forwardOnly`) or forward_backward pass with `loss`, its outputs aligned with our
   * tokenIds. Its seq_id is taken at the call; `datums` may still be coming (see forwardBackward).
   */
  private async pass(
    datums: readonly Datum[] | Promise<readonly Datum[]>,
    loss: BuiltinLoss,
    forwardOnly: boolean,
    signal: AbortSignal | undefined,
  ): Promise<PassOutput> {
    const inputs = LOSS_INPUTS[loss.name];
    const lossFnConfig =
      loss.name === 'ppo'
        ? { clip_low_threshold: loss.clipLowThreshold, clip_high_threshold: loss.clipHighThreshold }
        : undefined;
    const what = forwardOnly ? 'forward' : `forward_backward (${loss.name})`;
    const result = await this.submitInOrder(
      what,
      true,
      signal,
      async () => (await datums).map((datum) => toTinkerDatum(datum, inputs)),
      async (seqId, data) => {
        const body = encodeForwardBackwardRequest({
          modelId: this.currentModelId,
          seqId,
          lossFn: loss.name,
          lossFnConfig,
          forwardOnly,
          data,
        });
        const answer = await this.api.postProto('/api/v1/forward_backward', body, signal);
        return parseOrThrow(futureSchema, answer, `${what} answer`).request_id;
      },
    );
    const sent = await datums;
    if (result.contentType !== 'protobuf') {
      throw new TinkerRequestError(
        {
          endpoint: 'POST /api/v1/retrieve_future',
          reason: 'malformed',
          detail: `${what} answered JSON, not protobuf: ${new TextDecoder().decode(result.body).slice(0, 200)}`,
          retryable: false,
          attempts: 1,
        },
        'The server speaks an older Tinker wire; this client needs protobuf results (SkyRL >= 0.4).',
      );
    }
    const output = decodeForwardBackwardOutput(result.body);
    if (output.outputs.length !== sent.length) {
      throw new InvalidArgumentError(
        `${what}: the server returned ${output.outputs.length} outputs for ${sent.length} datums`,
      );
    }
    return {
      logprobs: output.outputs.map((row, d) =>
        fromTinkerPerToken(row.logprobs ?? [], sent[d]!.tokenIds.length, `${what} logprobs of datum ${d}`),
      ),
      elementwiseLoss: output.outputs.map((row, d) =>
        fromTinkerPerToken(
          row.elementwise_loss ?? [],
          sent[d]!.tokenIds.length,
          `${what} losses of datum ${d}`,
        ),
      ),
      metrics: output.metrics,
    };
  }

  /** A JSON request of this model with the next seq_id, and its future's result. */
  private modelRequest(
    endpoint: string,
    protobuf: boolean,
    signal: AbortSignal | undefined,
    body: (seqId: number) => unknown,
  ): Promise<FutureResult> {
    return this.submitInOrder(
      endpoint,
      protobuf,
      signal,
      async () => undefined,
      async (seqId) => {
        const answer = await this.api.postJson(`/api/v1/${endpoint}`, body(seqId), signal);
        return parseOrThrow(futureSchema, answer, `${endpoint} answer`).request_id;
      },
    );
  }

  /**
   * Submits after every earlier submission was answered, so the server sees seq_ids in order, then
   * waits for the result without holding up later submissions. The place in the order is taken at
   * the call; the seq_id when the turn comes and `prepare` (which may wait for an earlier result)
   * has succeeded, so a request that is never sent leaves no gap in the numbering. A resubmission
   * (410) sends the same seq_id and body again.
   */
  private submitInOrder<Prepared>(
    what: string,
    protobuf: boolean,
    signal: AbortSignal | undefined,
    prepare: () => Promise<Prepared>,
    post: (seqId: number, prepared: Prepared) => Promise<string>,
  ): Promise<FutureResult> {
    let submitted!: () => void;
    const turn = new Promise<void>((resolve) => {
      submitted = resolve;
    });
    const previous = this.submissions;
    this.submissions = previous.then(() => turn);
    let sent: { seqId: number; prepared: Prepared } | undefined;
    return this.api.runFuture(
      what,
      async () => {
        if (sent !== undefined) return post(sent.seqId, sent.prepared);
        try {
          await previous;
          const prepared = await prepare();
          sent = { seqId: ++this.lastSeqId, prepared };
          return await post(sent.seqId, prepared);
        } finally {
          submitted();
        }
      },
      { protobuf, signal },
    );
  }
}

async function createModel(
  api: ApiClient,
  sessionId: string,
  options: ResolvedTinkerPolicyOptions,
): Promise<string> {
  const answer = parseOrThrow(
    createModelSchema,
    await api.postJson('/api/v1/create_model', {
      session_id: sessionId,
      base_model: options.baseModel,
      lora_config: { rank: options.loraRank, ...(options.seed === undefined ? {} : { seed: options.seed }) },
    }),
    'create_model answer',
  );
  if (answer.request_id === undefined) {
    if (answer.model_id !== undefined) return answer.model_id;
    throw new InvalidArgumentError('create_model answered neither model_id nor request_id');
  }
  // SkyRL names the model at once but builds it in a request of its own; its failure shows here.
  const requestId = answer.request_id;
  const result = await api.runFuture('create_model', async () => requestId, { protobuf: false });
  return (
    answer.model_id ??
    parseOrThrow(createModelResultSchema, parseJson(result), 'create_model result').model_id
  );
}

function parseJson(result: FutureResult): unknown {
  const text = new TextDecoder().decode(result.body);
  try {
    return JSON.parse(text);
  } catch {
    throw new InvalidArgumentError(`The server's result is not JSON: ${text.slice(0, 200)}`);
  }
}

/** Opens a session, creates a model and returns it as a TrainablePolicy. */
export function createTinkerPolicy(options: TinkerPolicyOptions): Promise<TinkerPolicy> {
  return TinkerPolicy.create(options);
}
