export {
  type ChatClient,
  type ChatClientHooks,
  type ChatClientOptions,
  type ChatRequest,
  type ChatResponse,
  chatClientOptionsSchema,
  chatRequestSchema,
  createChatClient,
  type LlmEvent,
  restoreStop,
} from './chat-client';
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
export { createLimiter, type Limiter } from './limiter';
export {
  type ChatCompletionRequest,
  type ChatCompletionResponse,
  chatCompletionRequestSchema,
  chatCompletionResponseSchema,
} from './openai-wire';
export { type RetryOptions, retryOptionsSchema } from './retry';
