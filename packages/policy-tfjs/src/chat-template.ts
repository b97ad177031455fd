// Renders chat messages into token ids: each message is `<|role|>` + content + `<|end|>`, and a
// generation prompt ends with `<|assistant|>`, so the model's reply ends with the `<|end|>` token.
import type { ChatMessage } from '@pilotrl/core';
import { END_ID, type Tokenizer } from './tokenizer';

const ROLE_TOKENS = {
  system: '<|system|>',
  user: '<|user|>',
  assistant: '<|assistant|>',
} as const;

/** Token ids of `messages`, followed by `<|assistant|>` when `addGenerationPrompt` is true. */
export function renderChat(
  tokenizer: Tokenizer,
  messages: readonly ChatMessage[],
  addGenerationPrompt = true,
): number[] {
  const ids: number[] = [];
  for (const message of messages) {
    ids.push(tokenizer.specialId(ROLE_TOKENS[message.role]));
    for (const id of tokenizer.encode(message.content)) ids.push(id);
    ids.push(END_ID);
  }
  if (addGenerationPrompt) ids.push(tokenizer.specialId('<|assistant|>'));
  return ids;
}

/** The text of chat messages as the tokenizer sees it (for training a tokenizer on dialogues). */
export function chatText(messages: readonly ChatMessage[]): string {
  return messages.map((m) => `${ROLE_TOKENS[m.role]}${m.content}<|end|>`).join('');
}
