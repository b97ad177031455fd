// An OpenAI-compatible chat-completions client. It is a core `Policy` (batched `generate`) and has
// a plain `chat()` for judges and tools. This file assembles it: options and the API key here,
// HTTP with timeouts, retries, the concurrency limit and the reply size cap in `transport.ts`,
// request bodies and results in `wire-mapping.ts`, choice questions in `choices.ts`. The API key is
// read from an environment variable, kept in a closure, and redacted from every message and event.
import {
  type ChatModel,
  ConfigError,
  type GenerateRequest,
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
import { describeEndpoint, redactSecret } from './errors';
import { type ChatCompletionResponse, chatCompletionResponseSchema, modelListSchema } from './openai-wire';
import { createTransport } from './transport';
import {
  chatResponseOf,
  checkChatCompletion,
  checkModelList,
  freeResultOf,
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
  const transport = createTransport({ ...config, baseUrl, apiKey }, hooks);
  const wire: WireSettings = {
    model: config.model,
    maxTokensField: config.maxTokensField,
    vllm: config.dialect === 'vllm',
  };
  const chatEndpoint = `POST ${describeEndpoint(`${baseUrl}/chat/completions`)}`;

  async function complete(
    body: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<ChatCompletionResponse> {
    const raw = await transport.send('POST', '/chat/completions', body, signal, checkChatCompletion);
    return chatCompletionResponseSchema.parse(raw);
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
          const body = wireBody(wire, request);
          body.logprobs = true;
          const response = await complete(body, callOptions.signal);
          return freeResultOf(response, request.stop, config.policyVersion, chatEndpoint);
        }),
      );
    },
    async chat(request, callOptions = {}) {
      const resolved = parseOrThrow(chatRequestSchema, request, 'chat request');
      const body = wireBody(wire, resolved);
      if (resolved.logprobs) body.logprobs = true;
      if (resolved.jsonMode) body.response_format = { type: 'json_object' };
      return chatResponseOf(await complete(body, callOptions.signal), resolved.stop);
    },
    async listModels(callOptions = {}) {
      const raw = await transport.send('GET', '/models', undefined, callOptions.signal, checkModelList);
      return modelListSchema.parse(raw).data.map((model) => model.id);
    },
  };
}
