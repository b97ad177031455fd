// The model's tokenizer on the client, as Tinker expects (the API takes token ids only): a Hugging
// Face `tokenizer.json` (and `tokenizer_config.json` when present) from a local directory, run by
// @huggingface/tokenizers (pure JS; byte-level BPE as Qwen3 uses, among others).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Tokenizer as HfTokenizer } from '@huggingface/tokenizers';
import { CheckpointError, ParseError } from '@pilotrl/core';
import { z } from 'zod';

const tokenizerJsonSchema = z.looseObject({
  model: z.looseObject({
    type: z.string().optional(),
    vocab: z.record(z.string(), z.number().int().nonnegative()),
  }),
  added_tokens: z
    .array(
      z.looseObject({
        id: z.number().int().nonnegative(),
        content: z.string(),
        special: z.boolean().optional(),
      }),
    )
    .default([]),
});

export interface TextTokenizer {
  /** Token ids of `text`, with no special tokens added. */
  encode(text: string): number[];
  /** The text of `ids`, special tokens written out. */
  decode(ids: readonly number[]): string;
  /** The id of a token (a special token such as `<|im_end|>`), or undefined. */
  tokenId(token: string): number | undefined;
  /** One more than the largest id the tokenizer can produce. */
  readonly vocabSize: number;
}

async function readJson(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new CheckpointError(
      `Cannot read ${path}: ${(error as Error).message}. Give the model's tokenizer directory.`,
      {
        cause: error,
      },
    );
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ParseError(path, undefined, `not JSON: ${(error as Error).message}`);
  }
}

/** Loads `<dir>/tokenizer.json` (and `<dir>/tokenizer_config.json` when there is one). */
export async function loadTokenizer(dir: string): Promise<TextTokenizer> {
  const json = await readJson(join(dir, 'tokenizer.json'));
  const parsed = tokenizerJsonSchema.safeParse(json);
  if (!parsed.success) {
    throw new ParseError(
      join(dir, 'tokenizer.json'),
      undefined,
      `not a Hugging Face tokenizer: ${parsed.error.issues[0]?.message}`,
    );
  }
  let config: object = {};
  try {
    config = (await readJson(join(dir, 'tokenizer_config.json'))) as object;
  } catch (error) {
    if (!CheckpointError.isInstance(error)) throw error;
  }
  const tokenizer = new HfTokenizer(json as object, config);
  const ids = [
    ...Object.values(parsed.data.model.vocab),
    ...parsed.data.added_tokens.map((token) => token.id),
  ];
  const vocabSize = Math.max(...ids) + 1;
  return {
    encode: (text) => tokenizer.encode(text, { add_special_tokens: false }).ids,
    // The library refuses an empty list; a reply of only its end token decodes to ''.
    decode: (ids) =>
      ids.length === 0
        ? ''
        : tokenizer.decode([...ids], { skip_special_tokens: false, clean_up_tokenization_spaces: false }),
    tokenId: (token) => tokenizer.token_to_id(token),
    vocabSize,
  };
}
