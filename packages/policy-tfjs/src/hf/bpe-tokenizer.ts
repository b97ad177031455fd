// A Hugging Face `tokenizer.json` of the byte-level BPE kind that Llama 3 and Qwen models use, run
// as the `tokenizers` library runs it: added tokens split out first (longest first), the rest
// normalized (NFC or none), pre-tokenized (regex Split with the Isolated behaviour, ByteLevel with
// its GPT-2 regex or without), each piece's UTF-8 bytes mapped to printable characters, and merged
// by the merges' ranks. `encode` adds no special tokens (no post-processor), as chat templates are
// tokenized. Any other model, normalizer or pre-tokenizer is refused naming the file and the field.
// Reference: huggingface/tokenizers (tokenizers/src/models/bpe, pre_tokenizers/{byte_level,split}.rs).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CheckpointError, describeIssues, InvalidArgumentError } from '@pilotrl/core';
import { z } from 'zod';

export const TOKENIZER_FILE = 'tokenizer.json';
// GPT-2's pre-tokenizer regex, which ByteLevel applies when its use_regex is true.
const GPT2_PATTERN = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

const addedTokenSchema = z.looseObject({
  id: z.number().int().nonnegative(),
  content: z.string().min(1),
  single_word: z.boolean().default(false),
  lstrip: z.boolean().default(false),
  rstrip: z.boolean().default(false),
  special: z.boolean().default(false),
});

const tokenizerSchema = z.looseObject({
  added_tokens: z.array(addedTokenSchema).default([]),
  normalizer: z.looseObject({ type: z.string() }).nullable().default(null),
  pre_tokenizer: z.looseObject({ type: z.string() }).nullable().default(null),
  model: z.looseObject({
    type: z.string().optional(),
    vocab: z.record(z.string(), z.number().int().nonnegative()),
    merges: z.array(z.union([z.string(), z.tuple([z.string(), z.string()])])),
    ignore_merges: z.boolean().default(false),
    byte_fallback: z.boolean().default(false),
    dropout: z.number().nullable().default(null),
    continuing_subword_prefix: z.string().nullable().default(null),
    end_of_word_suffix: z.string().nullable().default(null),
  }),
});

/** A pre-tokenizer step: splits each piece into pieces. */
type PreTokenize = (pieces: string[]) => string[];

/** GPT-2's map of the 256 bytes to printable characters (bytes_to_unicode). */
function byteToChar(): string[] {
  const printable: number[] = [];
  for (let b = 0x21; b <= 0x7e; b++) printable.push(b);
  for (let b = 0xa1; b <= 0xac; b++) printable.push(b);
  for (let b = 0xae; b <= 0xff; b++) printable.push(b);
  const chars: string[] = new Array(256);
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    chars[b] = String.fromCodePoint(printable.includes(b) ? b : 256 + extra++);
  }
  return chars;
}
const BYTE_CHARS = byteToChar();
const CHAR_BYTES = new Map(BYTE_CHARS.map((c, b) => [c, b]));

/**
 * A Rust-regex pattern (as tokenizer.json holds it) as a JavaScript one: `(?i:...)` groups, which
 * Node 20 lacks, spelled out letter by letter, and \s / \S as Unicode White_Space as Rust means them.
 */
export function jsPattern(pattern: string): RegExp {
  let out = pattern.replace(
    /\(\?i:((?:[^()\\]|\\.)*)\)/g,
    (_, body: string) => `(?:${body.replace(/[a-zA-Z]/g, (c) => `[${c.toLowerCase()}${c.toUpperCase()}]`)})`,
  );
  out = out.replace(/\\s/g, '\\p{White_Space}').replace(/\\S/g, '\\P{White_Space}');
  return new RegExp(out, 'gu');
}

/** The matches of `regex` in `text` and the text between them, in order (the Isolated behaviour). */
function splitIsolated(text: string, regex: RegExp): string[] {
  const out: string[] = [];
  let last = 0;
  for (const match of text.matchAll(regex)) {
    if (match[0].length === 0) continue;
    if (match.index > last) out.push(text.slice(last, match.index));
    out.push(match[0]);
    last = match.index + match[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export class BpeTokenizer {
  readonly vocabSize: number;
  private readonly vocab: Map<string, number>;
  private readonly tokens: Map<number, string>;
  private readonly ranks: Map<string, number>;
  private readonly added: Map<string, number>;
  private readonly addedIds: Set<number>;
  private readonly addedSplit: RegExp | undefined;
  private readonly normalize: (text: string) => string;
  private readonly preTokenize: PreTokenize;
  private readonly ignoreMerges: boolean;
  private readonly cache = new Map<string, number[]>();

  private constructor(file: string, json: unknown) {
    const parsed = tokenizerSchema.safeParse(json);
    if (!parsed.success) {
      throw new CheckpointError(
        `${file}: not a BPE tokenizer:\n  ${describeIssues(parsed.error.issues).join('\n  ')}`,
      );
    }
    const { model, normalizer, pre_tokenizer: preTokenizer, added_tokens: addedTokens } = parsed.data;
    const refuse = (field: string, problem: string) => new CheckpointError(`${file}: ${field} ${problem}`);
    if (model.type !== undefined && model.type !== 'BPE') {
      throw refuse('model.type', `is "${model.type}"; only byte-level BPE tokenizers are read`);
    }
    for (const field of ['continuing_subword_prefix', 'end_of_word_suffix', 'dropout'] as const) {
      if (model[field] !== null) throw refuse(`model.${field}`, 'is set, which byte-level BPE does not use');
    }
    if (model.byte_fallback)
      throw refuse('model.byte_fallback', 'is true, which byte-level BPE does not use');
    this.vocab = new Map(Object.entries(model.vocab));
    this.ranks = new Map();
    model.merges.forEach((merge, rank) => {
      const pair = typeof merge === 'string' ? merge.split(' ') : merge;
      if (pair.length !== 2) throw refuse(`model.merges[${rank}]`, `is "${merge}", not a pair of tokens`);
      this.ranks.set(`${pair[0]} ${pair[1]}`, rank);
    });
    this.ignoreMerges = model.ignore_merges;
    this.added = new Map();
    this.addedIds = new Set();
    for (const [i, token] of addedTokens.entries()) {
      for (const flag of ['lstrip', 'rstrip', 'single_word'] as const) {
        if (token[flag])
          throw refuse(`added_tokens[${i}].${flag}`, `is true (${token.content}), which is not implemented`);
      }
      this.added.set(token.content, token.id);
      this.addedIds.add(token.id);
    }
    this.tokens = new Map([...this.vocab].map(([token, id]) => [id, token]));
    for (const [content, id] of this.added) this.tokens.set(id, content);
    this.vocabSize = Math.max(-1, ...this.tokens.keys()) + 1;
    const longestFirst = [...this.added.keys()].sort((a, b) => b.length - a.length);
    this.addedSplit =
      longestFirst.length > 0 ? new RegExp(longestFirst.map(escapeRegex).join('|'), 'gu') : undefined;
    this.normalize = normalizerOf(normalizer, 'normalizer', refuse);
    this.preTokenize = preTokenizerOf(preTokenizer, 'pre_tokenizer', refuse);
  }

  /** Reads `<dir>/tokenizer.json`. */
  static async fromDir(dir: string): Promise<BpeTokenizer> {
    const file = join(dir, TOKENIZER_FILE);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new CheckpointError(`${file}: cannot read it (${(error as Error).message})`, { cause: error });
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new CheckpointError(`${file}: not JSON (${(error as Error).message})`, { cause: error });
    }
    return BpeTokenizer.parse(file, json);
  }

  /** A tokenizer from the parsed JSON of `file` (named in every refusal). */
  static parse(file: string, json: unknown): BpeTokenizer {
    return new BpeTokenizer(file, json);
  }

  /** Token ids of `text`, added tokens matched as written, no special tokens added. */
  encode(text: string): number[] {
    const ids: number[] = [];
    const segments = this.addedSplit === undefined ? [text] : splitIsolated(text, this.addedSplit);
    for (const segment of segments) {
      const addedId = this.added.get(segment);
      if (addedId !== undefined) {
        ids.push(addedId);
        continue;
      }
      for (const piece of this.preTokenize([this.normalize(segment)])) {
        for (const id of this.encodePiece(piece)) ids.push(id);
      }
    }
    return ids;
  }

  /** The text of `ids` (added tokens written out; bytes that are not whole UTF-8 replaced by U+FFFD). */
  decode(ids: readonly number[]): string {
    let out = '';
    let bytes: number[] = [];
    const flush = () => {
      out += new TextDecoder().decode(Uint8Array.from(bytes));
      bytes = [];
    };
    for (const id of ids) {
      const token = this.tokens.get(id);
      if (token === undefined)
        throw new InvalidArgumentError(
          `token id ${id} is not in the tokenizer (vocabulary of ${this.vocabSize})`,
        );
      if (this.addedIds.has(id)) {
        flush();
        out += token;
        continue;
      }
      for (const char of token) bytes.push(CHAR_BYTES.get(char) ?? 0x3f);
    }
    flush();
    return out;
  }

  /** The id of `token` (an added token such as `<|im_end|>`, or a vocabulary entry), or undefined. */
  tokenId(token: string): number | undefined {
    return this.added.get(token) ?? this.vocab.get(token);
  }

  /** Ids of one pre-tokenized piece (already mapped to byte characters), by merge rank. */
  private encodePiece(piece: string): number[] {
    const cached = this.cache.get(piece);
    if (cached !== undefined) return cached;
    let symbols: string[];
    const whole = this.vocab.get(piece);
    if (this.ignoreMerges && whole !== undefined) {
      symbols = [piece];
    } else {
      symbols = Array.from(piece);
      while (symbols.length > 1) {
        let best = Number.POSITIVE_INFINITY;
        let bestAt = -1;
        for (let i = 0; i < symbols.length - 1; i++) {
          const rank = this.ranks.get(`${symbols[i]} ${symbols[i + 1]}`);
          if (rank !== undefined && rank < best) {
            best = rank;
            bestAt = i;
          }
        }
        if (bestAt < 0) break;
        const [a, b] = [symbols[bestAt]!, symbols[bestAt + 1]!];
        const merged: string[] = [];
        for (let i = 0; i < symbols.length; i++) {
          if (i < symbols.length - 1 && symbols[i] === a && symbols[i + 1] === b) {
            merged.push(a + b);
            i++;
          } else {
            merged.push(symbols[i]!);
          }
        }
        symbols = merged;
      }
    }
    const ids = symbols.map((symbol) => {
      const id = this.vocab.get(symbol);
      if (id === undefined) {
        throw new InvalidArgumentError(
          `the tokenizer has no token for "${symbol}" and no unknown token to stand for it`,
        );
      }
      return id;
    });
    if (this.cache.size < 100_000) this.cache.set(piece, ids);
    return ids;
  }
}

type Refuse = (field: string, problem: string) => CheckpointError;

function normalizerOf(
  spec: { type: string } | null,
  field: string,
  refuse: Refuse,
): (text: string) => string {
  if (spec === null) return (text) => text;
  if (spec.type === 'NFC') return (text) => text.normalize('NFC');
  if (spec.type === 'Sequence') {
    const steps = ((spec as { normalizers?: { type: string }[] }).normalizers ?? []).map((s, i) =>
      normalizerOf(s, `${field}.normalizers[${i}]`, refuse),
    );
    return (text) => steps.reduce((t, step) => step(t), text);
  }
  throw refuse(`${field}.type`, `is "${spec.type}"; the normalizers read are NFC and Sequence`);
}

function preTokenizerOf(spec: { type: string } | null, field: string, refuse: Refuse): PreTokenize {
  if (spec === null) throw refuse(field, 'is missing; a byte-level BPE tokenizer needs ByteLevel');
  if (spec.type === 'Sequence') {
    const steps = ((spec as { pretokenizers?: { type: string }[] }).pretokenizers ?? []).map((s, i) =>
      preTokenizerOf(s, `${field}.pretokenizers[${i}]`, refuse),
    );
    return (pieces) => steps.reduce((p, step) => step(p), pieces);
  }
  if (spec.type === 'Split') {
    const split = spec as {
      pattern?: { Regex?: string; String?: string };
      behavior?: string;
      invert?: boolean;
    };
    if (split.behavior !== 'Isolated') {
      throw refuse(`${field}.behavior`, `is "${split.behavior}"; only Isolated is implemented`);
    }
    if (split.invert) throw refuse(`${field}.invert`, 'is true; only false is implemented');
    const source =
      split.pattern?.Regex ??
      (split.pattern?.String !== undefined ? escapeRegex(split.pattern.String) : undefined);
    if (source === undefined) throw refuse(`${field}.pattern`, 'has neither Regex nor String');
    const regex = jsPattern(source);
    return (pieces) => pieces.flatMap((piece) => splitIsolated(piece, regex));
  }
  if (spec.type === 'ByteLevel') {
    const options = spec as { add_prefix_space?: boolean; use_regex?: boolean };
    const regex = options.use_regex !== false ? jsPattern(GPT2_PATTERN) : undefined;
    return (pieces) =>
      pieces.flatMap((piece) => {
        const spaced = options.add_prefix_space && !piece.startsWith(' ') ? ` ${piece}` : piece;
        const parts = regex === undefined ? [spaced] : splitIsolated(spaced, regex);
        return parts.map((part) =>
          Array.from(new TextEncoder().encode(part), (b) => BYTE_CHARS[b]!).join(''),
        );
      });
  }
  throw refuse(
    `${field}.type`,
    `is "${spec.type}"; the pre-tokenizers read are ByteLevel, Split and Sequence`,
  );
}
