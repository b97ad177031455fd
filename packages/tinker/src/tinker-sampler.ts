// The sampler side of TinkerPolicy: core's Policy over `asample`. Each request's chat messages are
// rendered to prompt ids here (Tinker samples from tokens), sampled on the server from the weights
// of one policy version (synced to a sampling session by the policy), and answered with the
// sampled ids, their logprobs and that version. Stop strings are applied here, on whole tokens;
// the renderer's end-of-turn ids are sent as stop tokens (SkyRL refuses a mix of both kinds).
import {
  type GenerateRequest,
  type GenerateResult,
  generateRequestSchema,
  InvalidArgumentError,
  type Policy,
  parseOrThrow,
  type ResolvedGenerateRequest,
} from '@pilotrl/core';
import { z } from 'zod';
import type { ApiClient } from './api-client';
import type { ChatRenderer } from './chat-renderer';
import { StaleSamplerError, TinkerRequestError, TokenizerMismatchError } from './errors';
import type { TextTokenizer } from './tokenizer';
import { futureSchema } from './wire/json-schemas';
import { decodeSampleResponse, type SampledWireSequence } from './wire/proto-codec';

export const tinkerSamplerOptionsSchema = z.strictObject({
  /** Follow the policy's version (default) or keep the weights of the version at creation. */
  follow: z.boolean().default(true),
  /**
   * With `follow: false`: versions the policy may move ahead before `generate` refuses. Keep it 0 on
   * SkyRL 0.4.0 (JAX): sampling older weights there loads them over the ones being trained.
   */
  maxStaleness: z.number().int().nonnegative().default(0),
});
export type TinkerSamplerOptions = z.input<typeof tinkerSamplerOptionsSchema>;

export interface SamplerHost {
  name: string;
  version(): number;
  /** The sampling session holding the weights of `version` (synced on first use). */
  samplingSessionFor(version: number): Promise<string>;
  nextSamplingSeqId(): number;
  tokenizer: TextTokenizer;
  renderer: ChatRenderer;
  api: ApiClient;
}

/** Where samples come from: a sampling session (weights synced per version) or saved sampler weights. */
type SampleSource = { sampling_session_id: string } | { model_path: string };

export class TinkerSampler implements Policy {
  readonly name: string;
  private readonly host: SamplerHost;
  private readonly follow: boolean;
  private readonly maxStaleness: number;
  private readonly pinnedVersion: number;
  private readonly pinnedSession: Promise<string> | undefined;
  private readonly savedWeights: string | undefined;

  /**
   * `saved`: sample from persistent sampler weights (`saveForSampler`'s path) that hold `version`,
   * whatever the policy does later.
   */
  constructor(host: SamplerHost, options: TinkerSamplerOptions, saved?: { path: string; version: number }) {
    const { follow, maxStaleness } = parseOrThrow(tinkerSamplerOptionsSchema, options, 'sampler options');
    this.host = host;
    this.name = host.name;
    this.follow = saved === undefined && follow;
    this.maxStaleness = saved === undefined ? maxStaleness : Number.POSITIVE_INFINITY;
    this.pinnedVersion = saved?.version ?? host.version();
    this.savedWeights = saved?.path;
    if (saved === undefined && !follow) {
      // Synced now: later the policy may have moved on and these weights be gone.
      this.pinnedSession = host.samplingSessionFor(this.pinnedVersion);
      this.pinnedSession.catch(() => undefined);
    }
  }

  get version(): number {
    return this.follow ? this.host.version() : this.pinnedVersion;
  }

  countTokens(text: string): number {
    return this.host.tokenizer.encode(text).length;
  }

  async generate(
    requests: readonly GenerateRequest[],
    options: { signal?: AbortSignal } = {},
  ): Promise<GenerateResult[]> {
    const resolved = requests.map((request, i) =>
      parseOrThrow(generateRequestSchema, request, `generate request ${i}`),
    );
    resolved.forEach((request, i) => {
      if (request.choices !== undefined) {
        throw new InvalidArgumentError(
          `generate request ${i} has choices: the Tinker API has no constrained decoding; sample freely and match the text instead`,
        );
      }
    });
    let version: number;
    let source: SampleSource;
    if (this.savedWeights !== undefined) {
      version = this.pinnedVersion;
      source = { model_path: this.savedWeights };
    } else if (this.follow) {
      version = this.host.version();
      source = { sampling_session_id: await this.host.samplingSessionFor(version) };
    } else {
      const policyVersion = this.host.version();
      if (policyVersion - this.pinnedVersion > this.maxStaleness) {
        throw new StaleSamplerError(this.pinnedVersion, policyVersion, this.maxStaleness);
      }
      version = this.pinnedVersion;
      source = { sampling_session_id: await this.pinnedSession! };
    }
    return Promise.all(resolved.map((request) => this.sampleOne(request, source, version, options.signal)));
  }

  private async sampleOne(
    request: ResolvedGenerateRequest,
    source: SampleSource,
    version: number,
    signal: AbortSignal | undefined,
  ): Promise<GenerateResult> {
    const { renderer, api } = this.host;
    const promptTokenIds = renderer.render(request.messages);
    const body = {
      prompt: { chunks: [{ type: 'encoded_text', tokens: promptTokenIds }] },
      num_samples: 1,
      sampling_params: {
        max_tokens: request.maxTokens,
        temperature: request.temperature,
        top_p: request.topP,
        ...(request.seed === undefined ? {} : { seed: request.seed }),
        stop: [...renderer.stopTokenIds],
      },
      ...source,
      // A sampling session wants its requests numbered, in order.
      ...('sampling_session_id' in source ? { seq_id: this.host.nextSamplingSeqId() } : {}),
      type: 'sample',
    };
    const result = await api.runFuture(
      'asample',
      async () => futureSchema.parse(await api.postJson('/api/v1/asample', body, signal)).request_id,
      { protobuf: true, signal },
    );
    if (result.contentType !== 'protobuf') {
      throw new TinkerRequestError(
        {
          endpoint: 'POST /api/v1/retrieve_future',
          reason: 'malformed',
          detail: 'asample answered JSON, not protobuf',
          retryable: false,
          attempts: 1,
        },
        'The server speaks an older Tinker wire; this client needs protobuf results (SkyRL >= 0.4).',
      );
    }
    const [sequence] = decodeSampleResponse(result.body).sequences;
    if (sequence === undefined) throw new InvalidArgumentError('asample returned no sequence');
    return this.toResult(sequence, request, promptTokenIds, version);
  }

  private toResult(
    sequence: SampledWireSequence,
    request: ResolvedGenerateRequest,
    promptTokenIds: number[],
    version: number,
  ): GenerateResult {
    const { tokenizer, renderer } = this.host;
    const outside = sequence.tokens.find((id) => id < 0 || id >= tokenizer.vocabSize);
    if (outside !== undefined) {
      throw new TokenizerMismatchError(
        `The server sampled token id ${outside}, outside the local tokenizer's ${tokenizer.vocabSize} ids: ` +
          "tokenizerDir does not hold the server's tokenizer.",
      );
    }
    if (sequence.logprobs === undefined || sequence.logprobs.length !== sequence.tokens.length) {
      throw new InvalidArgumentError(
        `asample returned ${sequence.logprobs?.length ?? 'no'} logprobs for ${sequence.tokens.length} tokens`,
      );
    }
    let tokenIds = sequence.tokens;
    let logprobs = sequence.logprobs;
    let finishReason: GenerateResult['finishReason'] = sequence.stopReason === 'stop' ? 'stop' : 'length';
    const ended = tokenIds.length > 0 && renderer.stopTokenIds.includes(tokenIds.at(-1)!);
    let text = tokenizer.decode(ended ? tokenIds.slice(0, -1) : tokenIds);
    // The first stop string ends the reply on the token that completes it; it stays in the text.
    const cut = firstStop(text, request.stop);
    if (cut !== undefined) {
      let keep = 1;
      while (keep < tokenIds.length && !tokenizer.decode(tokenIds.slice(0, keep)).includes(cut.stop)) keep++;
      tokenIds = tokenIds.slice(0, keep);
      logprobs = logprobs.slice(0, keep);
      text = text.slice(0, cut.end);
      finishReason = 'stop';
    }
    return { text, tokenIds, logprobs, promptTokenIds, finishReason, policyVersion: version };
  }
}

function firstStop(text: string, stops: readonly string[]): { stop: string; end: number } | undefined {
  let best: { stop: string; end: number } | undefined;
  for (const stop of stops) {
    const at = text.indexOf(stop);
    if (at >= 0 && (best === undefined || at + stop.length < best.end))
      best = { stop, end: at + stop.length };
  }
  return best;
}
