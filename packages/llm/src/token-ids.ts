// Token ids of a sample from a server that returns text rather than ids (llama.cpp's chat
// completions): the text is encoded again with the server's own tokenizer, and the result is
// checked against what the model sampled. Where re-encoding does not give back the sampled tokens
// (re-tokenization drift: the model wrote "he" + "llo", the tokenizer reads "hello"), those ids are
// not the ones the model produced, and a trainer given them would train on tokens it never chose;
// `findTokenDrift` says so instead of handing them over.
import { PilotRLError } from '@pilotrl/core';
import { z } from 'zod';
import { snippet } from './errors';
import type { Transport } from './transport';

/** A tokenizer behind a server (or in process): text to ids and back. */
export interface Tokenizer {
  /** Ids of `text`, without the begin-of-sequence token a server may put first. */
  encode(text: string, options?: { signal?: AbortSignal }): Promise<number[]>;
  decode(ids: readonly number[], options?: { signal?: AbortSignal }): Promise<string>;
}

/** How a sample's tokens and its text encoded again disagree. */
export interface TokenDrift {
  /**
   * `ids`: the sampled ids decode to text that encodes to other ids; `count`: the text encodes to
   * another number of tokens than were sampled; `text`: the encoded ids do not decode to the text.
   */
  kind: 'ids' | 'count' | 'text';
  /** One line: what differs, and where. */
  detail: string;
}

/** Re-tokenization drift where the caller asked for it to fail (`onTokenDrift: 'throw'`). */
export class TokenDriftError extends PilotRLError {
  static override readonly errorName = 'TokenDriftError';
  readonly drift: TokenDrift;

  constructor(drift: TokenDrift, message: string) {
    super(message);
    this.drift = drift;
  }
}

/**
 * Checks a sample against its text encoded again. Given the sampled `tokenIds`, they are decoded
 * and encoded back (the round trip must give the same ids). Given only the sampled token strings
 * (`tokens`, as OpenAI logprobs spell them), `text` is encoded and must give as many ids as there
 * are tokens, and decode back to `text`. Returns the ids (the sampled ones, or the encoded ones)
 * and the drift, when there is one. Not caught: a text encoded to as many tokens as were sampled
 * but split elsewhere (the token strings of a server are not compared piece by piece, because a
 * multi-byte character split across tokens has no exact string form).
 */
export async function findTokenDrift(
  sample: { text: string; tokenIds?: readonly number[]; tokens?: readonly string[] },
  tokenizer: Tokenizer,
  options: { signal?: AbortSignal } = {},
): Promise<{ tokenIds: number[]; drift: TokenDrift | undefined }> {
  if (sample.tokenIds !== undefined) {
    const sampled = [...sample.tokenIds];
    const decoded = await tokenizer.decode(sampled, options);
    const again = await tokenizer.encode(decoded, options);
    const at = firstDifference(sampled, again);
    if (at === undefined) return { tokenIds: sampled, drift: undefined };
    return {
      tokenIds: sampled,
      drift: {
        kind: 'ids',
        detail: `the ${sampled.length} sampled ids decode to ${snippet(decoded)}, which encodes to ${again.length} ids that differ from token ${at} on (sampled ${sampled[at] ?? 'none'}, encoded ${again[at] ?? 'none'})`,
      },
    };
  }
  if (sample.tokens === undefined) {
    throw new PilotRLError('findTokenDrift needs the sampled tokenIds or tokens to compare with');
  }
  const encoded = await tokenizer.encode(sample.text, options);
  if (encoded.length !== sample.tokens.length) {
    return {
      tokenIds: encoded,
      drift: {
        kind: 'count',
        detail: `the model sampled ${sample.tokens.length} tokens but its text ${snippet(sample.text)} encodes to ${encoded.length}`,
      },
    };
  }
  const decoded = await tokenizer.decode(encoded, options);
  if (decoded !== sample.text) {
    return {
      tokenIds: encoded,
      drift: {
        kind: 'text',
        detail: `the text ${snippet(sample.text)} encodes to ids that decode to ${snippet(decoded)}`,
      },
    };
  }
  return { tokenIds: encoded, drift: undefined };
}

function firstDifference(a: readonly number[], b: readonly number[]): number | undefined {
  for (let index = 0; index < Math.max(a.length, b.length); index++) {
    if (a[index] !== b[index]) return index;
  }
  return undefined;
}

const tokenizeReplySchema = z.object({ tokens: z.array(z.number().int().nonnegative()) });
const detokenizeReplySchema = z.object({ text: z.string() });

/**
 * The tokenizer of a llama-cpp-python server: `POST /extras/tokenize {input}` and
 * `POST /extras/detokenize {tokens}` at the server's root (`transport`'s base URL, without `/v1`).
 * The server encodes with special tokens parsed and the begin-of-sequence token first; that token
 * (what the empty text encodes to, asked once) is taken off every encoding.
 */
export function createLlamaCppTokenizer(transport: Transport, model: string): Tokenizer {
  const check = (schema: z.ZodType) => (body: unknown) =>
    schema.safeParse(body).success
      ? undefined
      : `body is not a tokenizer answer: ${snippet(JSON.stringify(body))}`;
  const tokenize = async (input: string, signal?: AbortSignal) => {
    const raw = await transport.send(
      'POST',
      '/extras/tokenize',
      { input, model },
      signal,
      check(tokenizeReplySchema),
    );
    return tokenizeReplySchema.parse(raw).tokens;
  };
  let prefix: Promise<number[]> | undefined;
  return {
    async encode(text, options = {}) {
      prefix ??= tokenize('', options.signal);
      prefix.catch(() => {
        prefix = undefined;
      });
      const [start, ids] = await Promise.all([prefix, tokenize(text, options.signal)]);
      const startsWithPrefix = start.every((id, index) => ids[index] === id);
      return startsWithPrefix ? ids.slice(start.length) : ids;
    },
    async decode(ids, options = {}) {
      const raw = await transport.send(
        'POST',
        '/extras/detokenize',
        { tokens: ids, model },
        options.signal,
        check(detokenizeReplySchema),
      );
      return detokenizeReplySchema.parse(raw).text;
    },
  };
}
