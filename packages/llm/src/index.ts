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
export { choiceGrammar, matchChoice, withChoicePrompt } from './choices';
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
export {
  createLlamaCppTokenizer,
  findTokenDrift,
  type TokenDrift,
  TokenDriftError,
  type Tokenizer,
} from './token-ids';
export type { LlmEvent } from './transport';
export { LLAMA_CPP_PLAIN_SAMPLING, restoreStop } from './wire-mapping';
