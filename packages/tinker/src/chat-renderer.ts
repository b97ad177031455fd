// Chat messages to prompt token ids, for `generate`: Tinker samples from tokens, so the client
// renders. The default is ChatML as Qwen models use it (`<|im_start|>role\n…<|im_end|>\n`, then
// `<|im_start|>assistant\n` to prompt the reply); a reply ends with `<|im_end|>`.
import type { ChatMessage, Datum } from '@pilotrl/core';
import { InvalidArgumentError } from '@pilotrl/core';
import type { TextTokenizer } from './tokenizer';

export interface ChatRenderer {
  /** Prompt ids of `messages`, ending where the assistant's reply starts. */
  render(messages: readonly ChatMessage[]): number[];
  /** Ids that end a reply (sent as stop tokens). */
  readonly stopTokenIds: readonly number[];
}

function requireToken(tokenizer: TextTokenizer, token: string): number {
  const id = tokenizer.tokenId(token);
  if (id === undefined) {
    throw new InvalidArgumentError(
      `The tokenizer has no ${token} token, which ChatML needs; give a chatRenderer that fits the model.`,
    );
  }
  return id;
}

export function chatMlRenderer(tokenizer: TextTokenizer): ChatRenderer {
  const start = requireToken(tokenizer, '<|im_start|>');
  const end = requireToken(tokenizer, '<|im_end|>');
  const newline = tokenizer.encode('\n');
  return {
    render(messages) {
      const ids: number[] = [];
      for (const message of messages) {
        ids.push(start, ...tokenizer.encode(`${message.role}\n${message.content}`), end, ...newline);
      }
      ids.push(start, ...tokenizer.encode('assistant\n'));
      return ids;
    },
    stopTokenIds: [end],
  };
}

/**
 * A supervised example as the sampler would have produced it: the rendered prompt (weight 0), then
 * the reply's tokens and the first end-of-turn id (weight 1), so training on it teaches the reply
 * and where it ends.
 */
export function replyDatum(
  renderer: ChatRenderer,
  tokenizer: TextTokenizer,
  messages: readonly ChatMessage[],
  reply: string,
): Datum {
  const end = renderer.stopTokenIds[0];
  if (end === undefined) throw new InvalidArgumentError('the chat renderer has no end-of-turn id');
  const prompt = renderer.render(messages);
  const tokenIds = [...prompt, ...tokenizer.encode(reply), end];
  return { tokenIds, weights: tokenIds.map((_, i) => (i < prompt.length ? 0 : 1)) };
}
