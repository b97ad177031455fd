// An OpenAI-compatible chat-completions client. It is a core `Policy` (batched `generate`) and has
// a plain `chat()` for judges and tools. This file assembles it: options and the API key here,
// HTTP with timeouts, retries, the concurrency limit and the reply size cap in `transport.ts`,
// request bodies and results in `wire-mapping.ts`, choice questions in `choices.ts`. The API key is
// read from an environment variable, kept in a closure, and redacted from every message and event.
import {
  type ChatModel,
  ConfigError,
  type GenerateRequest,
  type GenerateResult,
  generateRequestSchema,
  type Policy,
  parseOrThrow,
} from '@pilotrl/core';
import {
  type ChatClientHooks,
  type ChatClientOptions,
  type ChatRequest,
  type ChatResponse,
  chatClientOptionsSchema,
  chatRequestSchema,
} from './chat-client-types';
import { askForChoice } from './choices';
import { describeEndpoint, LlmResponseError, redactSecret } from './errors';
import { type ChatCompletionResponse, chatCompletionResponseSchema, modelListSchema } from './openai-wire';
import { createLlamaCppTokenizer, findTokenDrift, TokenDriftError, type Tokenizer } from './token-ids';
import { createTransport } from './transport';
import {
  chatResponseOf,
  checkChatCompletion,
  checkModelList,
  freeResultOf,
  logprobFields,
  type WireSettings,
  wireBody,
} from './wire-mapping';

export interface ChatClient extends Policy, ChatModel {
  readonly model: string;
  /** `POST <baseUrl>/chat/completions`, without credentials. */
  readonly endpoint: string;
  chat(request: ChatRequest, options?: { signal?: AbortSignal }): Promise<ChatResponse>;
  /** Ids of the models the server offers (`GET /models`). */
  listModels(options?: { signal?: AbortSignal }): Promise<string[]>;
  /** The server's tokenizer, where the dialect has one (`llama-cpp`: `/extras/tokenize`). */
  readonly tokenizer: Tokenizer | undefined;
  /** Results whose ids were dropped for re-tokenization drift (`onTokenDrift: 'drop'`). */
  readonly tokenDrifts: number;
}

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
  if (config.tokenIds === 'retokenize' && config.dialect !== 'llama-cpp') {
    throw new ConfigError(
      `tokenIds: 'retokenize' needs a server tokenizer, which only dialect 'llama-cpp' has (dialect is '${config.dialect}'); use tokenIds: 'returned'`,
    );
  }
  const transport = createTransport({ ...config, baseUrl, apiKey }, hooks);
  // llama.cpp's extras live at the server's root, beside /v1.
  const tokenizer =
    config.dialect === 'llama-cpp'
      ? createLlamaCppTokenizer(
          createTransport({ ...config, baseUrl: baseUrl.replace(/\/v1$/, ''), apiKey }, hooks),
          config.model,
        )
      : undefined;
  let tokenDrifts = 0;
  const wire: WireSettings = {
    model: config.model,
    maxTokensField: config.maxTokensField,
    dialect: config.dialect,
    retokenize: config.tokenIds === 'retokenize',
  };
  const chatEndpoint = `POST ${describeEndpoint(`${baseUrl}/chat/completions`)}`;

  async function complete(
    body: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<ChatCompletionResponse> {
    const raw = await transport.send('POST', '/chat/completions', body, signal, checkChatCompletion);
    return chatCompletionResponseSchema.parse(raw);
  }

  /** A free result given the server tokenizer's ids for its text, checked against what was sampled. */
  async function withServerTokenIds(
    result: GenerateResult,
    response: ChatCompletionResponse,
    signal: AbortSignal | undefined,
  ): Promise<GenerateResult> {
    const choice = response.choices[0]!;
    const sampled = choice.logprobs?.content ?? null;
    if (sampled === null) {
      throw new LlmResponseError(
        chatEndpoint,
        `${chatEndpoint} returned no logprobs, so its text cannot be checked for re-tokenization drift; use a server that returns logprobs, or tokenIds: 'returned'`,
      );
    }
    // The server's content, before the client put a stop string back: what the sampled tokens spell.
    const text = choice.message.content ?? '';
    const { tokenIds, drift } = await findTokenDrift(
      { text, tokens: sampled.map((entry) => entry.token) },
      tokenizer!,
      signal === undefined ? {} : { signal },
    );
    if (drift === undefined) {
      return { ...result, tokenIds, logprobs: sampled.map((entry) => entry.logprob) };
    }
    const message = redactSecret(
      `${chatEndpoint}: re-tokenization drift (${drift.kind}): ${drift.detail}; these ids are not the ones the model sampled. Use a server that returns token ids (vLLM with dialect 'vllm'), or onTokenDrift: 'drop' to count such samples and keep them without ids`,
      apiKey,
    );
    if (config.onTokenDrift === 'throw') throw new TokenDriftError(drift, message);
    tokenDrifts += 1;
    hooks.onEvent?.({ type: 'token_drift', endpoint: chatEndpoint, kind: drift.kind, detail: message });
    return { ...result, tokenIds: [], logprobs: [] };
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
        resolved.map(async (request) => {
          if (request.choices !== undefined) {
            return askForChoice(request, request.choices, {
              complete: (body) => complete(body, callOptions.signal),
              wire,
              attempts: config.choiceAttempts,
              policyVersion: config.policyVersion,
              endpoint: chatEndpoint,
              redact: (text) => redactSecret(text, apiKey),
            });
          }
          const body = { ...wireBody(wire, request), ...logprobFields(wire, 'generate') };
          const response = await complete(body, callOptions.signal);
          const result = freeResultOf(response, request.stop, config.policyVersion, chatEndpoint);
          return config.tokenIds === 'retokenize' && result.tokenIds.length === 0
            ? withServerTokenIds(result, response, callOptions.signal)
            : result;
        }),
      );
    },
    async chat(request, callOptions = {}) {
      const resolved = parseOrThrow(chatRequestSchema, request, 'chat request');
      const body = wireBody(wire, resolved);
      if (resolved.logprobs) Object.assign(body, logprobFields(wire, 'chat'));
      if (resolved.jsonMode) body.response_format = { type: 'json_object' };
      return chatResponseOf(await complete(body, callOptions.signal), resolved.stop);
    },
    async listModels(callOptions = {}) {
      const raw = await transport.send('GET', '/models', undefined, callOptions.signal, checkModelList);
      return modelListSchema.parse(raw).data.map((model) => model.id);
    },
    tokenizer,
    get tokenDrifts() {
      return tokenDrifts;
    },
  };
}
