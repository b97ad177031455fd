// The chat contract: what a judge or a tool asks of a chat model, one conversation in and one
// text reply out. `@pilotrl/llm`'s `ChatClient` is one; a test can pass an object that scripts
// its replies.
import type { ChatMessage } from './policy';

export interface ChatModelRequest {
  messages: ChatMessage[];
  maxTokens?: number;
  temperature?: number;
  seed?: number;
  /** Ask for a JSON object; the caller still validates what comes back. */
  jsonMode?: boolean;
}

export interface ChatModelReply {
  text: string;
}

export interface ChatModel {
  /** Name of the model that answers; part of any cache key over its answers. */
  readonly model: string;
  chat(request: ChatModelRequest, options?: { signal?: AbortSignal }): Promise<ChatModelReply>;
}
