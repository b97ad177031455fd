// An OpenAI-compatible chat-completions client. It is a core `Policy` (batched `generate`) and has
// a plain `chat()` for judges and tools. Requests are retried on 429/5xx/network failures with
// jittered exponential backoff (Retry-After wins when sent), each attempt has its own timeout, and
// a limiter bounds how many requests are in flight. The API key is read from an environment
// variable, kept in a closure, and redacted from every message and event.
import {
  type ChatMessage,
  ConfigError,
  chatMessageSchema,
  createRng,
  type GenerateRequest,
  type GenerateResult,
  generateRequestSchema,
  type Policy,
  parseOrThrow,
  printable,
  type ResolvedGenerateRequest,
} from '@pilotrl/core';
import { z } from 'zod';
import { matchChoice, withChoicePrompt } from './choices';
import {
  describeEndpoint,
  type LlmFailureReason,
  LlmRequestError,
  LlmResponseError,
  redactSecret,
} from './errors';
import { createLimiter } from './limiter';
import {
  type ChatCompletionResponse,
  chatCompletionResponseSchema,
  modelListSchema,
  tokenIdFromText,
} from './openai-wire';
import {
  abortableSleep,
  backoffDelayMs,
  isRetriableStatus,
  parseRetryAfter,
  retryOptionsSchema,
} from './retry';

export const chatClientOptionsSchema = z.object({
  /** Base URL of the API, up to and including `/v1`, e.g. `http://127.0.0.1:8000/v1`. */
  baseUrl: z.url({ protocol: /^https?$/ }),
  /** Model name sent with every request. */
  model: z.string().min(1),
  /** Name of the environment variable that holds the API key; omit for servers without auth. */
  apiKeyEnv: z.string().min(1).optional(),
  /** Time limit of one attempt (connect, generate, read body), in milliseconds. */
  timeoutMs: z.number().positive().default(60_000),
  /** Requests in flight at once, over `generate` and `chat` together. */
  maxConcurrency: z.number().int().positive().default(8),
  retry: retryOptionsSchema.prefault({}),
  /**
   * `openai`: standard fields only. `vllm`: also the vLLM/SGLang extensions (`return_token_ids`,
   * `include_stop_str_in_output`, `guided_choice`), which `createChatCompletionsServer` speaks too;
   * needed for token ids and exact choices.
   */
  dialect: z.enum(['openai', 'vllm']).default('openai'),
  /** The request field for the token limit; OpenAI's reasoning models accept only `max_completion_tokens`. */
  maxTokensField: z.enum(['max_tokens', 'max_completion_tokens']).default('max_tokens'),
  /** With `choices`: how many times to ask before giving up on an answer that is none of them. */
  choiceAttempts: z.number().int().positive().default(3),
  /** Reported as `policyVersion` on every result (a remote server's weights are opaque to us). */
  policyVersion: z.number().int().nonnegative().default(0),
  /** Policy name; defaults to `llm:<model>`. */
  name: z.string().min(1).optional(),
  /** Extra headers sent with every request (not for secrets: use `apiKeyEnv`). */
  headers: z.record(z.string(), z.string()).default({}),
  /** Seed of the backoff jitter, so retry schedules repeat. */
  jitterSeed: z.number().int().nonnegative().default(0),
});
export type ChatClientOptions = z.input<typeof chatClientOptionsSchema>;

/** What happened on the wire, for logs and metrics. Never contains the API key. */
export type LlmEvent =
  | {
      type: 'retry';
      endpoint: string;
      attempt: number;
      reason: LlmFailureReason;
      status?: number;
      delayMs: number;
    }
  | { type: 'failure'; endpoint: string; attempts: number; reason: LlmFailureReason; status?: number };

/** Runtime hooks that are not configuration: where the key comes from, logging, waiting. */
export interface ChatClientHooks {
  /** Where `apiKeyEnv` is looked up; defaults to `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Receives retry and failure events. */
  onEvent?: (event: LlmEvent) => void;
  /** How backoff waits; defaults to a timer that the caller's signal can cut short. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export const chatRequestSchema = z.object({
  messages: z.array(chatMessageSchema).min(1),
  maxTokens: z.number().int().positive().optional(),
  temperature: z.number().min(0).max(2).optional(),
  topP: z.number().gt(0).max(1).optional(),
  stop: z.array(z.string().min(1)).default([]),
  seed: z.number().int().nonnegative().optional(),
  /** Ask for per-token logprobs. */
  logprobs: z.boolean().default(false),
  /** Ask for a JSON object (`response_format: json_object`); the caller still validates it. */
  jsonMode: z.boolean().default(false),
});
export type ChatRequest = z.input<typeof chatRequestSchema>;

export interface ChatResponse {
  /** The content; a stop string that ended generation is kept at its end when it is known (see README). */
  text: string;
  /** The server's finish reason (`stop`, `length`, ...). */
  finishReason: string;
  /** Generated tokens with logprobs, when asked and returned. */
  tokens: { token: string; logprob: number }[] | undefined;
  /** Ids of generated and prompt tokens, when the server exposes them. */
  tokenIds: number[] | undefined;
  promptTokenIds: number[] | undefined;
  usage: { promptTokens: number | undefined; completionTokens: number | undefined };
}

export interface ChatClient extends Policy {
  readonly model: string;
  /** `POST <baseUrl>/chat/completions`, without credentials. */
  readonly endpoint: string;
  chat(request: ChatRequest, options?: { signal?: AbortSignal }): Promise<ChatResponse>;
  /** Ids of the models the server offers (`GET /models`). */
  listModels(options?: { signal?: AbortSignal }): Promise<string[]>;
}

type AttemptOutcome =
  | { ok: true; body: unknown }
  | {
      ok: false;
      reason: LlmFailureReason;
      status?: number;
      retriable: boolean;
      retryAfterMs?: number;
      detail: string;
    };

export function createChatClient(options: ChatClientOptions, hooks: ChatClientHooks = {}): ChatClient {
  const config = parseOrThrow(chatClientOptionsSchema, options, 'chat client options');
  const env = hooks.env ?? process.env;
  const apiKey = config.apiKeyEnv === undefined ? undefined : env[config.apiKeyEnv];
  if (config.apiKeyEnv !== undefined && (apiKey === undefined || apiKey === '')) {
    throw new ConfigError(
      `Environment variable ${config.apiKeyEnv} (apiKeyEnv) is not set; export the API key there, or omit apiKeyEnv for a server without authentication`,
    );
  }
  const baseUrl = config.baseUrl.replace(/\/+$/, '');
  const limiter = createLimiter(config.maxConcurrency);
  const random = createRng(config.jitterSeed).float;
  const sleep = hooks.sleep ?? abortableSleep;
  const redact = (text: string) => redactSecret(text, apiKey);
  const emit = (event: LlmEvent) => hooks.onEvent?.(event);
  const vllm = config.dialect === 'vllm';

  const headers: Record<string, string> = { ...config.headers, 'content-type': 'application/json' };
  if (apiKey !== undefined) headers.authorization = `Bearer ${apiKey}`;

  // A 2xx that is not the answer asked for is most often a reply cut off on the way (a proxy, a
  // restarting server): it is retried like a 5xx, within retry.maxRetries.
  const malformed = (status: number, detail: string): AttemptOutcome => ({
    ok: false,
    reason: 'malformed',
    status,
    retriable: config.retry.retryOnMalformed,
    detail,
  });

  async function attempt(
    url: string,
    init: RequestInit,
    signal: AbortSignal | undefined,
    validate: BodyCheck | undefined,
  ): Promise<AttemptOutcome> {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), config.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal;
    try {
      const response = await fetch(url, { ...init, headers, signal: combined });
      const text = await response.text();
      if (!response.ok) {
        const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), Date.now());
        return {
          ok: false,
          reason: 'http',
          status: response.status,
          retriable: isRetriableStatus(response.status),
          ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
          detail: `HTTP ${response.status} ${response.statusText}: ${errorMessageOf(text)}`,
        };
      }
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return malformed(response.status, `body is not JSON: ${snippet(text)}`);
      }
      const problem = validate?.(body);
      return problem === undefined ? { ok: true, body } : malformed(response.status, problem);
    } catch (error) {
      if (signal?.aborted)
        return { ok: false, reason: 'aborted', retriable: false, detail: 'aborted by the caller' };
      if (timeout.signal.aborted) {
        return {
          ok: false,
          reason: 'timeout',
          retriable: config.retry.retryOnTimeout,
          detail: `no complete answer within timeoutMs=${config.timeoutMs}`,
        };
      }
      return { ok: false, reason: 'network', retriable: true, detail: networkDetail(error) };
    } finally {
      clearTimeout(timer);
    }
  }

  async function send(
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    signal?: AbortSignal,
    validate?: BodyCheck,
  ): Promise<unknown> {
    const url = `${baseUrl}${path}`;
    const endpoint = `${method} ${describeEndpoint(url)}`;
    const init: RequestInit = body === undefined ? { method } : { method, body: JSON.stringify(body) };
    for (let attemptNumber = 1; ; attemptNumber++) {
      const outcome: AttemptOutcome = signal?.aborted
        ? { ok: false, reason: 'aborted', retriable: false, detail: 'aborted by the caller' }
        : await limiter.run(() => attempt(url, init, signal, validate));
      if (outcome.ok) return outcome.body;
      const fail = (extra = '') => {
        emit({
          type: 'failure',
          endpoint,
          attempts: attemptNumber,
          reason: outcome.reason,
          ...(outcome.status === undefined ? {} : { status: outcome.status }),
        });
        return new LlmRequestError(
          {
            endpoint,
            reason: outcome.reason,
            ...(outcome.status === undefined ? {} : { status: outcome.status }),
            attempts: attemptNumber,
          },
          redact(
            `${endpoint} failed after ${attemptNumber} attempt${attemptNumber === 1 ? '' : 's'}: ${outcome.detail}${extra}. ${hintFor(outcome.reason, outcome.status, config.apiKeyEnv)}`,
          ),
        );
      };
      if (!outcome.retriable || attemptNumber > config.retry.maxRetries) throw fail();
      if (outcome.retryAfterMs !== undefined && outcome.retryAfterMs > config.retry.maxDelayMs) {
        throw fail(
          ` (the server asked to wait ${outcome.retryAfterMs} ms, more than retry.maxDelayMs=${config.retry.maxDelayMs})`,
        );
      }
      const delayMs = outcome.retryAfterMs ?? backoffDelayMs(config.retry, attemptNumber - 1, random);
      emit({
        type: 'retry',
        endpoint,
        attempt: attemptNumber,
        reason: outcome.reason,
        ...(outcome.status === undefined ? {} : { status: outcome.status }),
        delayMs,
      });
      try {
        await sleep(delayMs, signal);
      } catch {
        throw new LlmRequestError(
          { endpoint, reason: 'aborted', attempts: attemptNumber },
          `${endpoint} was aborted by the caller while waiting to retry`,
        );
      }
    }
  }

  const chatEndpoint = `POST ${describeEndpoint(`${baseUrl}/chat/completions`)}`;

  async function complete(
    body: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<ChatCompletionResponse> {
    const raw = await send('POST', '/chat/completions', body, signal, checkChatCompletion);
    return chatCompletionResponseSchema.parse(raw);
  }

  function wireBody(request: {
    messages: readonly ChatMessage[];
    maxTokens?: number | undefined;
    temperature?: number | undefined;
    topP?: number | undefined;
    stop: readonly string[];
    seed?: number | undefined;
  }): Record<string, unknown> {
    const body: Record<string, unknown> = { model: config.model, messages: request.messages };
    if (request.maxTokens !== undefined) body[config.maxTokensField] = request.maxTokens;
    if (request.temperature !== undefined) body.temperature = request.temperature;
    if (request.topP !== undefined) body.top_p = request.topP;
    if (request.stop.length > 0) body.stop = request.stop;
    if (request.seed !== undefined) body.seed = request.seed;
    if (vllm) {
      body.return_token_ids = true;
      if (request.stop.length > 0) body.include_stop_str_in_output = true;
    }
    return body;
  }

  function firstChoice(response: ChatCompletionResponse) {
    return response.choices[0]!;
  }

  function tokensOf(response: ChatCompletionResponse): { tokenIds: number[]; logprobs: number[] } {
    const choice = firstChoice(response);
    const content = choice.logprobs?.content ?? null;
    let ids = choice.token_ids ?? null;
    if (ids === null && content !== null && content.length > 0) {
      const parsed = content.map((entry) => tokenIdFromText(entry.token));
      if (parsed.every((id) => id !== undefined)) ids = parsed as number[];
    }
    if (ids === null || content === null) return { tokenIds: [], logprobs: [] };
    if (ids.length !== content.length) {
      throw new LlmResponseError(
        chatEndpoint,
        `${chatEndpoint} returned ${ids.length} token ids but ${content.length} logprobs; they must align one to one`,
      );
    }
    return { tokenIds: ids, logprobs: content.map((entry) => entry.logprob) };
  }

  async function generateFree(
    request: ResolvedGenerateRequest,
    signal?: AbortSignal,
  ): Promise<GenerateResult> {
    const body = wireBody(request);
    body.logprobs = true;
    const response = await complete(body, signal);
    const choice = firstChoice(response);
    const { tokenIds, logprobs } = tokensOf(response);
    return {
      text: restoreStop(choice.message.content ?? '', choice.finish_reason, choice.stop_reason, request.stop),
      tokenIds,
      logprobs,
      promptTokenIds: response.prompt_token_ids ?? [],
      finishReason: choice.finish_reason === 'length' ? 'length' : 'stop',
      policyVersion: config.policyVersion,
    };
  }

  async function generateChoice(
    request: ResolvedGenerateRequest,
    choices: readonly string[],
    signal?: AbortSignal,
  ): Promise<GenerateResult> {
    const answers: string[] = [];
    for (let tryIndex = 0; tryIndex < config.choiceAttempts; tryIndex++) {
      const body = wireBody({
        ...request,
        messages: withChoicePrompt(request.messages, choices),
        stop: [],
        ...(request.seed === undefined ? {} : { seed: request.seed + tryIndex }),
      });
      body.logprobs = true;
      if (vllm) body.guided_choice = choices;
      const response = await complete(body, signal);
      const answer = firstChoice(response).message.content ?? '';
      const index = matchChoice(answer, choices);
      if (index !== undefined) {
        const exact = answer === choices[index];
        const { tokenIds, logprobs } = exact ? tokensOf(response) : { tokenIds: [], logprobs: [] };
        return {
          text: choices[index]!,
          tokenIds,
          logprobs,
          promptTokenIds: exact ? (response.prompt_token_ids ?? []) : [],
          finishReason: 'choice',
          choiceIndex: index,
          policyVersion: config.policyVersion,
        };
      }
      answers.push(answer);
    }
    throw new LlmResponseError(
      chatEndpoint,
      redact(
        `${chatEndpoint}: model ${config.model} answered none of the ${choices.length} choices in ${config.choiceAttempts} attempts (last answer: ${snippet(answers.at(-1) ?? '')}); use dialect 'vllm' with a server that supports guided_choice, or raise choiceAttempts`,
      ),
    );
  }

  return {
    name: config.name ?? `llm:${config.model}`,
    version: config.policyVersion,
    model: config.model,
    endpoint: chatEndpoint,
    async generate(requests: readonly GenerateRequest[], callOptions = {}) {
      const resolved = requests.map((request, index) =>
        parseOrThrow(generateRequestSchema, request, `generate request ${index}`),
      );
      return Promise.all(
        resolved.map((request) =>
          request.choices === undefined
            ? generateFree(request, callOptions.signal)
            : generateChoice(request, request.choices, callOptions.signal),
        ),
      );
    },
    async chat(request, callOptions = {}) {
      const resolved = parseOrThrow(chatRequestSchema, request, 'chat request');
      const body = wireBody(resolved);
      if (resolved.logprobs) body.logprobs = true;
      if (resolved.jsonMode) body.response_format = { type: 'json_object' };
      const response = await complete(body, callOptions.signal);
      const choice = firstChoice(response);
      const content = choice.logprobs?.content ?? null;
      return {
        text: restoreStop(
          choice.message.content ?? '',
          choice.finish_reason,
          choice.stop_reason,
          resolved.stop,
        ),
        finishReason: choice.finish_reason ?? 'stop',
        tokens: content?.map((entry) => ({ token: entry.token, logprob: entry.logprob })),
        tokenIds: choice.token_ids ?? undefined,
        promptTokenIds: response.prompt_token_ids ?? undefined,
        usage: {
          promptTokens: response.usage?.prompt_tokens,
          completionTokens: response.usage?.completion_tokens,
        },
      };
    },
    async listModels(callOptions = {}) {
      const raw = await send('GET', '/models', undefined, callOptions.signal, (body) =>
        modelListSchema.safeParse(body).success
          ? undefined
          : `body is not a model list: ${snippet(JSON.stringify(body))}`,
      );
      return modelListSchema.parse(raw).data.map((model) => model.id);
    },
  };
}

/**
 * The core contract keeps the stop string in the text; OpenAI servers cut it. It is put back when
 * the server says which one matched (`stop_reason`), or when only one stop string was asked for and
 * the server does not report `stop_reason` at all. A `stop_reason` of null or a number means the
 * model ended on its own end-of-sequence token.
 */
export function restoreStop(
  content: string,
  finishReason: string | null,
  stopReason: string | number | null | undefined,
  stops: readonly string[],
): string {
  if (finishReason !== 'stop' || stops.length === 0) return content;
  if (stops.some((stop) => content.endsWith(stop))) return content;
  if (typeof stopReason === 'string') return stops.includes(stopReason) ? content + stopReason : content;
  if (stopReason === undefined && stops.length === 1) return content + stops[0];
  return content;
}

/** Why a 2xx body is not the answer asked for, or undefined when it is. */
type BodyCheck = (body: unknown) => string | undefined;

const checkChatCompletion: BodyCheck = (body) => {
  const parsed = chatCompletionResponseSchema.safeParse(body);
  if (parsed.success) return undefined;
  const issues = parsed.error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
  return `body is not a chat completion (${issues})`;
};

/** The start of a reply, quoted on one line: JSON escapes the C0 controls, `printable` the rest. */
function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return printable(
    JSON.stringify(flat.length > 300 ? `${flat.slice(0, 300)}...` : flat),
    Number.POSITIVE_INFINITY,
  );
}

/** The `error.message` of an OpenAI-shaped error body, else the start of the body. */
function errorMessageOf(body: string): string {
  try {
    const message = (JSON.parse(body) as { error?: { message?: unknown } }).error?.message;
    if (typeof message === 'string') return snippet(message);
  } catch {
    // Not JSON: show the raw start below.
  }
  return snippet(body);
}

function networkDetail(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (cause && typeof cause.code === 'string') return `network error ${cause.code}`;
  return `network error: ${error instanceof Error ? error.message : String(error)}`;
}

function hintFor(
  reason: LlmFailureReason,
  status: number | undefined,
  apiKeyEnv: string | undefined,
): string {
  if (reason === 'timeout') return 'Raise timeoutMs or lower maxTokens.';
  if (reason === 'network') return 'Check that the server is running and that baseUrl is right.';
  if (reason === 'aborted') return 'The caller cancelled the request.';
  if (reason === 'malformed')
    return 'Is baseUrl an OpenAI-compatible /v1 endpoint? A proxy that cuts replies short also causes this.';
  if (status === 401 || status === 403) {
    return apiKeyEnv === undefined
      ? 'The server wants credentials: set apiKeyEnv to the environment variable that holds the key.'
      : `Check the API key in ${apiKeyEnv}.`;
  }
  if (status === 404)
    return 'Check that baseUrl ends with /v1 and that the model name exists (listModels()).';
  if (status === 429) return 'The server is rate limiting: lower maxConcurrency or raise retry.maxRetries.';
  if (status !== undefined && status >= 500) return 'The server failed; see its logs.';
  return 'The server rejected the request (its message is quoted above).';
}
