export { type ChatClient, createChatClient } from './chat-client';
export {
  type ChatClientHooks,
  type ChatClientOptions,
  type ChatRequest,
  type ChatResponse,
  chatClientOptionsSchema,
  chatRequestSchema,
} from './chat-client-types';
export {
  type ChatCompletionsServer,
  type ChatCompletionsServerOptions,
  chatCompletionsServerOptionsSchema,
  createChatCompletionsServer,
} from './chat-completions-server';
export { matchChoice, withChoicePrompt } from './choices';
export {
  describeEndpoint,
  type LlmFailureReason,
  LlmRequestError,
  LlmResponseError,
  redactSecret,
} from './errors';
export {
  type ChatCompletionRequest,
  type ChatCompletionResponse,
  chatCompletionRequestSchema,
  chatCompletionResponseSchema,
} from './openai-wire';
export { type RetryOptions, retryOptionsSchema } from './retry';
export type { LlmEvent } from './transport';
export { restoreStop } from './wire-mapping';
