// Between the client's calls and the OpenAI wire: the request body of a `chat` or `generate` call,
// the checks that a 2xx reply is the answer asked for, and the results read from a completion
// (token ids aligned with their logprobs, the stop string put back, usage).
import type { ChatMessage, GenerateResult } from '@pilotrl/core';
import type { ChatResponse } from './chat-client-types';
import { LlmResponseError, snippet } from './errors';
import {
  type ChatCompletionResponse,
  chatCompletionResponseSchema,
  modelListSchema,
  tokenIdFromText,
} from './openai-wire';
import type { BodyCheck } from './transport';

/** What shapes every request body: the model, the token-limit field, and the server's extensions. */
export interface WireSettings {
  model: string;
  maxTokensField: 'max_tokens' | 'max_completion_tokens';
  /**
   * `vllm`: also the vLLM/SGLang extensions (`return_token_ids`, `include_stop_str_in_output`);
   * `llama-cpp`: llama.cpp's sampler settings that make it sample from the distribution its
   * logprobs report (see `LLAMA_CPP_PLAIN_SAMPLING`).
   */
  dialect: 'openai' | 'vllm' | 'llama-cpp';
  /** Token ids come from re-encoding the text (`tokenIds: 'retokenize'`), which needs the logprobs. */
  retokenize: boolean;
}

/**
 * llama-cpp-python's server samples with `top_k` 40, `min_p` 0.05 and `repeat_penalty` 1.1 unless
 * told otherwise, while its logprobs are the model's plain log-softmax: sampled tokens would then
 * not follow the logprobs a trainer is given. These values turn those filters off, so only
 * `temperature` and `top_p` (sent as asked) shape sampling.
 */
export const LLAMA_CPP_PLAIN_SAMPLING = { top_k: 0, min_p: 0, repeat_penalty: 1 } as const;

/** The sampling fields a `chat` or `generate` request shares. */
export interface WireRequest {
  messages: readonly ChatMessage[];
  maxTokens?: number | undefined;
  temperature?: number | undefined;
  topP?: number | undefined;
  stop: readonly string[];
  seed?: number | undefined;
}

export function wireBody(settings: WireSettings, request: WireRequest): Record<string, unknown> {
  const body: Record<string, unknown> = { model: settings.model, messages: request.messages };
  if (request.maxTokens !== undefined) body[settings.maxTokensField] = request.maxTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.stop.length > 0) body.stop = request.stop;
  if (request.seed !== undefined) body.seed = request.seed;
  if (settings.dialect === 'vllm') {
    body.return_token_ids = true;
    if (request.stop.length > 0) body.include_stop_str_in_output = true;
  }
  if (settings.dialect === 'llama-cpp') Object.assign(body, LLAMA_CPP_PLAIN_SAMPLING);
  return body;
}

/**
 * The fields that ask for per-token logprobs. llama-cpp-python returns chat logprobs only when
 * `top_logprobs` is set; `generate` asks it for them only when they can be kept, that is with the
 * ids of `tokenIds: 'retokenize'` (the contract keeps logprobs only beside token ids), because they
 * cost it a log-softmax over Gemma's 262,144-token vocabulary per token: about half its time.
 */
export function logprobFields(settings: WireSettings, purpose: 'generate' | 'chat'): Record<string, unknown> {
  if (settings.dialect !== 'llama-cpp') return { logprobs: true };
  if (purpose === 'generate' && !settings.retokenize) return {};
  return { logprobs: true, top_logprobs: 0 };
}

export const checkChatCompletion: BodyCheck = (body) => {
  const parsed = chatCompletionResponseSchema.safeParse(body);
  if (parsed.success) return undefined;
  const issues = parsed.error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
  return `body is not a chat completion (${issues})`;
};

export const checkModelList: BodyCheck = (body) =>
  modelListSchema.safeParse(body).success
    ? undefined
    : `body is not a model list: ${snippet(JSON.stringify(body))}`;

export function firstChoice(response: ChatCompletionResponse) {
  return response.choices[0]!;
}

/**
 * Generated token ids with their logprobs: ids from `token_ids`, else from logprob tokens spelled
 * `token_id:<n>`; both empty when the server exposes no ids or no logprobs.
 */
export function tokensOf(
  response: ChatCompletionResponse,
  endpoint: string,
): { tokenIds: number[]; logprobs: number[] } {
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
      endpoint,
      `${endpoint} returned ${ids.length} token ids but ${content.length} logprobs; they must align one to one`,
    );
  }
  return { tokenIds: ids, logprobs: content.map((entry) => entry.logprob) };
}

/** The core result of a free (unconstrained) generation. */
export function freeResultOf(
  response: ChatCompletionResponse,
  stops: readonly string[],
  policyVersion: number,
  endpoint: string,
): GenerateResult {
  const choice = firstChoice(response);
  const { tokenIds, logprobs } = tokensOf(response, endpoint);
  return {
    text: restoreStop(choice.message.content ?? '', choice.finish_reason, choice.stop_reason, stops),
    tokenIds,
    logprobs,
    promptTokenIds: response.prompt_token_ids ?? [],
    finishReason: choice.finish_reason === 'length' ? 'length' : 'stop',
    policyVersion,
  };
}

export function chatResponseOf(response: ChatCompletionResponse, stops: readonly string[]): ChatResponse {
  const choice = firstChoice(response);
  const content = choice.logprobs?.content ?? null;
  return {
    text: restoreStop(choice.message.content ?? '', choice.finish_reason, choice.stop_reason, stops),
    finishReason: choice.finish_reason ?? 'stop',
    tokens: content?.map((entry) => ({ token: entry.token, logprob: entry.logprob })),
    tokenIds: choice.token_ids ?? undefined,
    promptTokenIds: response.prompt_token_ids ?? undefined,
    usage: {
      promptTokens: response.usage?.prompt_tokens,
      completionTokens: response.usage?.completion_tokens,
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
