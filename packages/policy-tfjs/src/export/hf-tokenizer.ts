// Our byte-level BPE tokenizer as a Hugging Face `tokenizer.json` (and its tokenizer_config.json
// with the chat template in Jinja), so that the `tokenizers` library encodes every text to our ids:
// special tokens split out first (none is a prefix of another, so its longest-first matching is our
// leftmost matching); the rest split by our chunk pattern (a Split pre-tokenizer keeping the
// matches, which cover the text); each chunk's UTF-8 bytes mapped to GPT-2's printable characters
// (ByteLevel without its own regex) and merged by rank (the BPE model: our merge i is rank i).
// JavaScript's \s is spelled out as a class, since the Rust regex engines read \s differently.
// A tokenizer that two merges give the same bytes cannot be written (tokenizer.json maps each
// string to one id), and is refused.
import { InvalidArgumentError } from '@pilotrl/core';
import { SPECIAL_TOKENS, type Tokenizer } from '../tokenizer';

// ECMAScript's WhiteSpace and LineTerminator: what \s matches in our chunk pattern.
const JS_WHITESPACE = '\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff';
/** Our chunk pattern (tokenizer.ts) with \s and \S as explicit classes. */
export const CHUNK_REGEX = ` ?\\p{L}+| ?\\p{N}| ?[^${JS_WHITESPACE}\\p{L}\\p{N}]+|[${JS_WHITESPACE}]+(?![^${JS_WHITESPACE}])|[${JS_WHITESPACE}]+`;

/** GPT-2's map of the 256 bytes to printable characters (bytes_to_unicode), which ByteLevel uses. */
function byteChars(): string[] {
  const kept = (b: number) =>
    (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
  const chars: string[] = [];
  let extra = 0;
  for (let b = 0; b < 256; b++) chars.push(String.fromCodePoint(kept(b) ? b : 256 + extra++));
  return chars;
}

const ROLES = ['system', 'user', 'assistant'] as const;

/** Our chat template (chat-template.ts) in Jinja, as apply_chat_template runs it. */
export const CHAT_TEMPLATE_JINJA = [
  '{%- for message in messages -%}',
  `{%- if message['role'] not in [${ROLES.map((r) => `'${r}'`).join(', ')}] -%}`,
  "{{- raise_exception('role ' + message['role'] + ' is not one of system, user, assistant') -}}",
  '{%- endif -%}',
  "{{- '<|' + message['role'] + '|>' + message['content'] + '<|end|>' -}}",
  '{%- endfor -%}',
  "{%- if add_generation_prompt -%}{{- '<|assistant|>' -}}{%- endif -%}",
].join('');

/** tokenizer.json of `tokenizer`. */
export function hfTokenizerJson(tokenizer: Tokenizer): Record<string, unknown> {
  const chars = byteChars();
  const text = (id: number) => Array.from(tokenizer.decodeBytes([id]), (b) => chars[b]!).join('');
  // The special tokens are in the model's vocabulary too: `tokenizers` renumbers an added token
  // missing from it to follow the model's last id.
  const vocab: Record<string, number> = Object.fromEntries(SPECIAL_TOKENS.map((token, id) => [token, id]));
  const owner = new Map<string, number>(SPECIAL_TOKENS.map((token, id) => [token, id]));
  for (let id = SPECIAL_TOKENS.length; id < tokenizer.vocabSize; id++) {
    const token = text(id);
    const earlier = owner.get(token);
    if (earlier !== undefined) {
      throw new InvalidArgumentError(
        `tokens ${earlier} and ${id} of this tokenizer are both ${JSON.stringify(tokenizer.decode([id]))}; a tokenizer.json gives each string one id, so this tokenizer cannot be exported exactly (retrain it)`,
      );
    }
    owner.set(token, id);
    vocab[token] = id;
  }
  const merges = tokenizer.toJSON().merges.map(([a, b]) => `${text(a)} ${text(b)}`);
  const byteLevel = { add_prefix_space: false, trim_offsets: false, use_regex: false };
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL_TOKENS.map((content, id) => ({
      id,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: null,
    pre_tokenizer: {
      type: 'Sequence',
      pretokenizers: [
        { type: 'Split', pattern: { Regex: CHUNK_REGEX }, behavior: 'Isolated', invert: false },
        { type: 'ByteLevel', ...byteLevel },
      ],
    },
    post_processor: null,
    decoder: { type: 'ByteLevel', ...byteLevel },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab,
      merges,
    },
  };
}

/** tokenizer_config.json: the special tokens, the chat template, no tokens added by `encode`. */
export function hfTokenizerConfig(contextLength: number): Record<string, unknown> {
  return {
    tokenizer_class: 'PreTrainedTokenizerFast',
    eos_token: '<|end|>',
    pad_token: '<pad>',
    additional_special_tokens: SPECIAL_TOKENS.filter((t) => t !== '<|end|>' && t !== '<pad>'),
    add_bos_token: false,
    add_eos_token: false,
    clean_up_tokenization_spaces: false,
    model_max_length: contextLength,
    chat_template: CHAT_TEMPLATE_JINJA,
  };
}
