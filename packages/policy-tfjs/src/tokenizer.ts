// A byte-level BPE tokenizer trained from a corpus. Special tokens (agent tags, chat-role markers,
// end and padding) are matched literally; all other text is split into word-like chunks and
// encoded from UTF-8 bytes with learned merges, so every string tokenizes (no unknown token) and
// decoding gives the text back exactly.
import { InvalidArgumentError, parseOrThrow } from '@pilotrl/core';
import { z } from 'zod';

/** Ids 0..n-1 of every tokenizer, in this order. */
export const SPECIAL_TOKENS = [
  '<pad>',
  '<|end|>',
  '<|system|>',
  '<|user|>',
  '<|assistant|>',
  '<global_plan>',
  '</global_plan>',
  '<thought>',
  '</thought>',
  '<action>',
  '</action>',
] as const;
export type SpecialToken = (typeof SPECIAL_TOKENS)[number];

export const PAD_ID = 0;
export const END_ID = 1;
const BYTE_BASE = SPECIAL_TOKENS.length;
const TOKENIZER_FORMAT_VERSION = 1;

// Word-like chunks: an optional leading space with letters, a single digit (numbers stay
// compositional: "cabinet 12"), punctuation runs, and whitespace.
const CHUNK_PATTERN = / ?\p{L}+| ?\p{N}| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;
const SPECIAL_PATTERN = new RegExp(
  SPECIAL_TOKENS.map((t) => t.replace(/[|[\]/\\^$.*+?()]/g, '\\$&')).join('|'),
  'g',
);

export const serializedTokenizerSchema = z.object({
  formatVersion: z.literal(TOKENIZER_FORMAT_VERSION),
  specialTokens: z.array(z.string()),
  /** Merges in the order they were learned; merge i creates token `specials + 256 + i`. */
  merges: z.array(z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()])),
});
export type SerializedTokenizer = z.infer<typeof serializedTokenizerSchema>;

export const trainTokenizerOptionsSchema = z.object({
  /** Total vocabulary size including special and byte tokens. */
  vocabSize: z
    .number()
    .int()
    .min(BYTE_BASE + 256),
  /** A pair must occur at least this often to be merged. */
  minFrequency: z.number().int().positive().default(2),
});
export type TrainTokenizerOptions = z.input<typeof trainTokenizerOptionsSchema>;

const encoder = new TextEncoder();

function chunksOf(text: string): string[] {
  return text.match(CHUNK_PATTERN) ?? [];
}

const pairKey = (a: number, b: number) => a * 0x100000 + b;

export class Tokenizer {
  readonly vocabSize: number;
  private readonly merges: readonly (readonly [number, number])[];
  private readonly mergeRank = new Map<number, number>();
  private readonly tokenBytes: Uint8Array[] = [];
  private readonly cache = new Map<string, number[]>();

  private constructor(merges: readonly (readonly [number, number])[]) {
    this.merges = merges;
    for (let i = 0; i < 256; i++) this.tokenBytes.push(Uint8Array.of(i));
    merges.forEach(([a, b], rank) => {
      const id = BYTE_BASE + 256 + rank;
      if (a >= id || b >= id)
        throw new InvalidArgumentError(`tokenizer merge ${rank} refers to a later token`);
      this.mergeRank.set(pairKey(a, b), rank);
      const left = this.bytesOf(a);
      const right = this.bytesOf(b);
      const joined = new Uint8Array(left.length + right.length);
      joined.set(left);
      joined.set(right, left.length);
      this.tokenBytes.push(joined);
    });
    this.vocabSize = BYTE_BASE + 256 + merges.length;
  }

  /** Learns merges from `corpus` (deterministic: ties break towards the smaller pair of ids). */
  static train(corpus: readonly string[], options: TrainTokenizerOptions): Tokenizer {
    const { vocabSize, minFrequency } = parseOrThrow(
      trainTokenizerOptionsSchema,
      options,
      'tokenizer options',
    );
    const counts = new Map<string, number>();
    for (const text of corpus) {
      for (const part of text.split(SPECIAL_PATTERN)) {
        for (const chunk of chunksOf(part)) counts.set(chunk, (counts.get(chunk) ?? 0) + 1);
      }
    }
    const words = [...counts.entries()]
      .sort((p, q) => (p[0] < q[0] ? -1 : p[0] > q[0] ? 1 : 0))
      .map(([chunk, count]) => ({ ids: [...encoder.encode(chunk)].map((b) => b + BYTE_BASE), count }));
    const merges: [number, number][] = [];
    while (BYTE_BASE + 256 + merges.length < vocabSize) {
      const pairCounts = new Map<number, number>();
      for (const { ids, count } of words) {
        for (let i = 0; i + 1 < ids.length; i++) {
          const key = pairKey(ids[i]!, ids[i + 1]!);
          pairCounts.set(key, (pairCounts.get(key) ?? 0) + count);
        }
      }
      let bestKey = -1;
      let bestCount = 0;
      for (const [key, count] of pairCounts) {
        if (count > bestCount || (count === bestCount && key < bestKey)) {
          bestKey = key;
          bestCount = count;
        }
      }
      if (bestKey < 0 || bestCount < minFrequency) break;
      const a = Math.floor(bestKey / 0x100000);
      const b = bestKey % 0x100000;
      const id = BYTE_BASE + 256 + merges.length;
      merges.push([a, b]);
      for (const word of words) word.ids = mergePair(word.ids, a, b, id);
    }
    return new Tokenizer(merges);
  }

  static fromJSON(value: unknown): Tokenizer {
    const data = parseOrThrow(serializedTokenizerSchema, value, 'serialized tokenizer');
    if (data.specialTokens.join('\n') !== SPECIAL_TOKENS.join('\n')) {
      throw new InvalidArgumentError(
        `serialized tokenizer has special tokens [${data.specialTokens.join(', ')}] but this version uses [${SPECIAL_TOKENS.join(', ')}]; retrain the tokenizer`,
      );
    }
    return new Tokenizer(data.merges);
  }

  toJSON(): SerializedTokenizer {
    return {
      formatVersion: TOKENIZER_FORMAT_VERSION,
      specialTokens: [...SPECIAL_TOKENS],
      merges: this.merges.map(([a, b]) => [a, b]),
    };
  }

  /** Id of a special token. */
  specialId(token: SpecialToken): number {
    return SPECIAL_TOKENS.indexOf(token);
  }

  /** Token ids of `text`; special-token strings in the text become their special ids. */
  encode(text: string): number[] {
    const ids: number[] = [];
    let last = 0;
    for (const match of text.matchAll(SPECIAL_PATTERN)) {
      this.encodePlain(text.slice(last, match.index), ids);
      ids.push(SPECIAL_TOKENS.indexOf(match[0] as SpecialToken));
      last = match.index + match[0].length;
    }
    this.encodePlain(text.slice(last), ids);
    return ids;
  }

  decode(ids: readonly number[]): string {
    return new TextDecoder().decode(this.decodeBytes(ids));
  }

  /** The exact bytes of `ids` (special tokens as their UTF-8 strings). */
  decodeBytes(ids: readonly number[]): Uint8Array {
    const parts: Uint8Array[] = [];
    let length = 0;
    for (const id of ids) {
      const bytes = this.bytesOf(id);
      parts.push(bytes);
      length += bytes.length;
    }
    const out = new Uint8Array(length);
    let offset = 0;
    for (const part of parts) {
      out.set(part, offset);
      offset += part.length;
    }
    return out;
  }

  private bytesOf(id: number): Uint8Array {
    if (!Number.isInteger(id) || id < 0 || id >= BYTE_BASE + this.tokenBytes.length) {
      throw new InvalidArgumentError(`token id ${id} is outside this tokenizer's vocabulary`);
    }
    if (id < BYTE_BASE) return encoder.encode(SPECIAL_TOKENS[id]!);
    return this.tokenBytes[id - BYTE_BASE]!;
  }

  private encodePlain(text: string, out: number[]): void {
    for (const chunk of chunksOf(text)) {
      let ids = this.cache.get(chunk);
      if (ids === undefined) {
        ids = this.encodeChunk(chunk);
        if (this.cache.size < 100_000) this.cache.set(chunk, ids);
      }
      for (const id of ids) out.push(id);
    }
  }

  private encodeChunk(chunk: string): number[] {
    let ids = [...encoder.encode(chunk)].map((b) => b + BYTE_BASE);
    for (;;) {
      let bestRank = Number.POSITIVE_INFINITY;
      let bestIndex = -1;
      for (let i = 0; i + 1 < ids.length; i++) {
        const rank = this.mergeRank.get(pairKey(ids[i]!, ids[i + 1]!));
        if (rank !== undefined && rank < bestRank) {
          bestRank = rank;
          bestIndex = i;
        }
      }
      if (bestIndex < 0) return ids;
      const [a, b] = this.merges[bestRank]!;
      ids = mergePair(ids, a, b, BYTE_BASE + 256 + bestRank);
    }
  }
}

function mergePair(ids: number[], a: number, b: number, id: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < ids.length; i++) {
    if (i + 1 < ids.length && ids[i] === a && ids[i + 1] === b) {
      out.push(id);
      i++;
    } else {
      out.push(ids[i]!);
    }
  }
  return out;
}
