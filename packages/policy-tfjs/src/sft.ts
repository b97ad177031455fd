// Supervised fine-tuning data in this policy's tokens: a (prompt, response) pair becomes one datum,
// the prompt rendered with the chat template and masked out of the loss, the response and its
// closing `<|end|>` trained on. The SFT update and loop that train on such datums, on any
// TrainablePolicy, are `sftStep` and `trainSft` of @pilotrl/optim.
import { type ChatMessage, chatMessageSchema, type Datum, parseOrThrow } from '@pilotrl/core';
import { z } from 'zod';
import { renderChat } from './chat-template';
import { END_ID, type Tokenizer } from './tokenizer';

export interface SftExample {
  /** Chat messages before the reply (rendered with a generation prompt), or raw prompt ids. */
  prompt: readonly ChatMessage[] | readonly number[];
  /** The reply to learn: text (encoded, then `<|end|>` appended) or raw ids (used as given). */
  response: string | readonly number[];
}

const promptSchema = z.union([z.array(chatMessageSchema), z.array(z.number().int().nonnegative())]);

/** The datum of one example: prompt weights 0, response weights 1. */
export function sftDatum(tokenizer: Tokenizer, example: SftExample): Datum {
  const prompt = parseOrThrow(promptSchema, example.prompt, 'SFT example prompt');
  const promptIds =
    prompt.length > 0 && typeof prompt[0] === 'number'
      ? (prompt as number[])
      : renderChat(tokenizer, prompt as ChatMessage[]);
  const responseIds =
    typeof example.response === 'string'
      ? [...tokenizer.encode(example.response), END_ID]
      : [...example.response];
  const tokenIds = [...promptIds, ...responseIds];
  return { tokenIds, weights: tokenIds.map((_, i) => (i < promptIds.length ? 0 : 1)) };
}
