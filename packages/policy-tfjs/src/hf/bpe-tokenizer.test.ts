// Byte-level BPE on a tokenizer.json built by hand: the 256 byte characters, a few merges worked
// out on paper, added tokens, the GPT-2 and Llama 3 pre-tokenizer regexes, NFC, ignore_merges, and
// the refusals of what is not implemented, naming the file and the field.
import { describe, expect, it } from 'vitest';
import { BpeTokenizer, jsPattern } from './bpe-tokenizer';

// GPT-2's byte characters: printable bytes stand for themselves, the others (space, newline...)
// for 256 + n in byte order: space is Ġ (U+0120), newline Ċ (U+010A).
const bytes: string[] = [];
{
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
    bytes.push(String.fromCodePoint(printable ? b : 256 + extra++));
  }
}
const merged = ['he', 'the', 'll', 'hell', 'Ġthe', 'Ġhello', 'th'];
const vocab: Record<string, number> = {};
for (const [i, c] of bytes.entries()) vocab[c] = i;
for (const [i, t] of merged.entries()) vocab[t] = 256 + i;
const END = 300;

const LLAMA3_SPLIT =
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

function tokenizerJson(overrides: Record<string, unknown> = {}, model: Record<string, unknown> = {}) {
  return {
    version: '1.0',
    added_tokens: [
      { id: END, content: '<|end|>', special: true, lstrip: false, rstrip: false, single_word: false },
    ],
    normalizer: null,
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, use_regex: true, trim_offsets: true },
    decoder: { type: 'ByteLevel' },
    model: {
      type: 'BPE',
      vocab,
      // "Ġhello" is in the vocabulary but no merge makes it: only ignore_merges takes it whole.
      // "t h" comes last: "the" must merge h,e first (rank 0), never t,h (rank 5).
      merges: ['h e', 't he', 'l l', 'he ll', ['Ġ', 'the'], 't h'],
      ...model,
    },
    ...overrides,
  };
}
const id = (token: string) => vocab[token]!;

describe('byte-level BPE', () => {
  it('merges by rank within each pre-tokenized piece, with spaces as Ġ', () => {
    const t = BpeTokenizer.parse('tokenizer.json', tokenizerJson());
    // "the" → t,he → the; " hello" → Ġ,h,e,l,l,o → Ġ,he,l,l,o → Ġ,he,ll,o → Ġ,hell,o; " the" → Ġthe.
    expect(t.encode('the hello the')).toEqual([id('the'), id('Ġ'), id('hell'), id('o'), id('Ġthe')]);
    expect(t.encode('')).toEqual([]);
  });

  it('splits added tokens out first and writes them back as they are', () => {
    const t = BpeTokenizer.parse('tokenizer.json', tokenizerJson());
    expect(t.encode('the<|end|>the')).toEqual([id('the'), END, id('the')]);
    expect(t.tokenId('<|end|>')).toBe(END);
    expect(t.vocabSize).toBe(END + 1);
    const text = 'héllo wörld\n\ttabs ✓ 😀<|end|> the end';
    expect(t.decode(t.encode(text))).toBe(text);
  });

  it('takes a piece whole when ignore_merges is set and the vocabulary has it', () => {
    const plain = BpeTokenizer.parse('tokenizer.json', tokenizerJson());
    const whole = BpeTokenizer.parse('tokenizer.json', tokenizerJson({}, { ignore_merges: true }));
    expect(plain.encode(' hello')).toEqual([id('Ġ'), id('hell'), id('o')]);
    expect(whole.encode(' hello')).toEqual([id('Ġhello')]);
  });

  it("splits as Llama 3's regex does: case-insensitive contractions, digits in threes", () => {
    expect("IT'SOK 12345".match(jsPattern(LLAMA3_SPLIT))).toEqual(['IT', "'S", 'OK', ' ', '123', '45']);
    const t = BpeTokenizer.parse(
      'tokenizer.json',
      tokenizerJson({
        pre_tokenizer: {
          type: 'Sequence',
          pretokenizers: [
            { type: 'Split', pattern: { Regex: LLAMA3_SPLIT }, behavior: 'Isolated', invert: false },
            { type: 'ByteLevel', add_prefix_space: false, use_regex: false },
          ],
        },
      }),
    );
    expect(t.encode('12345')).toEqual([id('1'), id('2'), id('3'), id('4'), id('5')]);
    // "the" and " the" stay apart, as the regex splits them; the space joins the word.
    expect(t.encode('the the')).toEqual([id('the'), id('Ġthe')]);
  });

  it('normalizes to NFC before splitting into bytes', () => {
    const t = BpeTokenizer.parse('tokenizer.json', tokenizerJson({ normalizer: { type: 'NFC' } }));
    // e + combining acute → é, UTF-8 c3 a9.
    expect(t.encode('e\u0301')).toEqual([0xc3, 0xa9].map((b) => id(bytes[b]!)));
    const raw = BpeTokenizer.parse('tokenizer.json', tokenizerJson());
    expect(raw.encode('e\u0301')).toEqual([id('e'), ...[0xcc, 0x81].map((b) => id(bytes[b]!))]);
  });

  it('refuses what it does not implement, naming the file and the field', () => {
    expect(() => BpeTokenizer.parse('x/tokenizer.json', tokenizerJson({}, { type: 'WordPiece' }))).toThrow(
      'x/tokenizer.json: model.type is "WordPiece"; only byte-level BPE tokenizers are read',
    );
    expect(() =>
      BpeTokenizer.parse('x/tokenizer.json', tokenizerJson({ normalizer: { type: 'Lowercase' } })),
    ).toThrow('x/tokenizer.json: normalizer.type is "Lowercase"');
    const removed = { type: 'Split', pattern: { Regex: '\\s+' }, behavior: 'Removed', invert: false };
    expect(() =>
      BpeTokenizer.parse(
        'x/tokenizer.json',
        tokenizerJson({ pre_tokenizer: { type: 'Sequence', pretokenizers: [removed] } }),
      ),
    ).toThrow(
      'x/tokenizer.json: pre_tokenizer.pretokenizers[0].behavior is "Removed"; only Isolated is implemented',
    );
  });
});
