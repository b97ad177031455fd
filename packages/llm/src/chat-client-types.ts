// What the chat client takes and gives: its options (validated by `createChatClient`), the runtime
// hooks that are not configuration, and the shapes of a `chat()` request and response.
import { chatMessageSchema } from '@pilotrl/core';
import { z } from 'zod';
import { retryOptionsSchema } from './retry';
import type { LlmEvent } from './transport';

/** Default of `maxReplyBytes`: far above any chat completion, far below what exhausts memory. */
const DEFAULT_MAX_REPLY_BYTES = 16 * 2 ** 20;

export const chatClientOptionsSchema = z.object({
  /** Base URL of the API, up to and including `/v1`, e.g. `http://127.0.0.1:8000/v1`. */
  baseUrl: z.url({ protocol: /^https?$/ }),
  /** Model name sent with every request. */
  model: z.string().min(1),
  /** Name of the environment variable that holds the API key; omit for servers without auth. */
  apiKeyEnv: z.string().min(1).optional(),
  /** Time limit of one attempt (connect, generate, read body), in milliseconds. */
  timeoutMs: z.number().positive().default(60_000),
  /**
   * Longest reply body read, in bytes; reading stops there. A 2xx reply over it fails at once with
   * reason `too_large` (it is not retried: the same request would get as long a reply again).
   */
  maxReplyBytes: z.number().int().positive().default(DEFAULT_MAX_REPLY_BYTES),
  /** Requests in flight at once, over `generate` and `chat` together. */
  maxConcurrency: z.number().int().positive().default(8),
  retry: retryOptionsSchema.prefault({}),
  /**
   * `openai`: standard fields only. `vllm`: also the vLLM/SGLang extensions (`return_token_ids`,
   * `include_stop_str_in_output`, `guided_choice`), which `createChatCompletionsServer` speaks too;
   * needed for token ids and exact choices. `llama-cpp`: llama-cpp-python's server: choices as a
   * `grammar`, its sampling filters off (`LLAMA_CPP_PLAIN_SAMPLING`), and `tokenIds: 'retokenize'`
   * available through its `/extras/tokenize`.
   */
  dialect: z.enum(['openai', 'vllm', 'llama-cpp']).default('openai'),
  /**
   * Where a `generate` result's token ids come from. `returned`: only ids the server returns
   * (vLLM's `token_ids`, or logprob tokens spelled `token_id:<n>`); otherwise they stay empty.
   * `retokenize` (dialect `llama-cpp`): when the reply has none, the completion text is encoded with
   * the server's own tokenizer and checked against the tokens the model sampled; a mismatch is
   * re-tokenization drift, handled as `onTokenDrift` says.
   */
  tokenIds: z.enum(['returned', 'retokenize']).default('returned'),
  /**
   * On re-tokenization drift: `throw` a `TokenDriftError`, or `drop` the ids (empty token ids and
   * logprobs, as for a server without ids), count it in `tokenDrifts` and report a `token_drift` event.
   */
  onTokenDrift: z.enum(['throw', 'drop']).default('throw'),
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
export type ResolvedChatClientOptions = z.output<typeof chatClientOptionsSchema>;

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
