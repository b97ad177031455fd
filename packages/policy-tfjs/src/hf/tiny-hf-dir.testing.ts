// A tiny Qwen3 model directory written from a fixed seed, for unit tests that open a model as a
// user does (no Python): config.json, model.safetensors of random weights, a byte-level BPE
// tokenizer.json of the 256 byte characters, a few merges and Qwen3's special tokens, and a chat
// template with the markers of Qwen3's.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeSafetensors } from '../export/safetensors-writer';
import type { HfDecoderConfig } from './hf-config';
import { randomHfWeights, tinyQwen3Config } from './random-hf-weights.testing';

const MERGES: [string, string][] = [
  ['h', 'e'],
  ['l', 'l'],
  ['Ġ', 't'],
  ['o', 'n'],
];
const SPECIAL = ['<|endoftext|>', '<|im_start|>', '<|im_end|>', '<think>', '</think>'];
/** Ids of the tokenizer: 256 bytes, then the merges, then the special tokens. */
export const TINY_VOCAB_SIZE = 256 + MERGES.length + SPECIAL.length;
export const TINY_IM_END = 256 + MERGES.length + 2;

// The markers Qwen3's template is recognised by; the rendering itself is hf-chat-template.ts's.
const QWEN3_TEMPLATE =
  "{%- set ns = namespace(last_query_index=messages|length - 1) %}{{- '<|im_start|>' + message.role }}{{- '<think>\\n\\n</think>\\n\\n' }}";

function byteChars(): string[] {
  const chars: string[] = [];
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
    chars.push(String.fromCodePoint(printable ? b : 256 + extra++));
  }
  return chars;
}

/** The config of the tiny directory's model: tinyQwen3Config with the tokenizer's vocabulary. */
export function tinyDirConfig(overrides: Partial<HfDecoderConfig> = {}): HfDecoderConfig {
  return {
    ...tinyQwen3Config,
    vocabSize: TINY_VOCAB_SIZE,
    maxPositions: 128,
    eosTokenIds: [TINY_IM_END],
    ...overrides,
  };
}

/** Writes the tiny model directory `dir` with weights drawn from `seed`; returns `dir`. */
export function writeTinyHfDir(dir: string, seed = 3, overrides: Partial<HfDecoderConfig> = {}): string {
  const config = tinyDirConfig(overrides);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({
      model_type: 'qwen3',
      architectures: ['Qwen3ForCausalLM'],
      vocab_size: config.vocabSize,
      hidden_size: config.hiddenSize,
      intermediate_size: config.intermediateSize,
      num_hidden_layers: config.numLayers,
      num_attention_heads: config.numHeads,
      num_key_value_heads: config.numKvHeads,
      head_dim: config.headDim,
      rms_norm_eps: config.rmsNormEps,
      rope_theta: config.ropeTheta,
      max_position_embeddings: config.maxPositions,
      tie_word_embeddings: config.tieWordEmbeddings,
      eos_token_id: config.eosTokenIds[0],
    }),
  );
  const { tensors } = randomHfWeights(config, seed);
  writeFileSync(
    join(dir, 'model.safetensors'),
    encodeSafetensors([...tensors].map(([name, { shape, values }]) => ({ name, shape, data: values }))),
  );
  const vocab: Record<string, number> = {};
  byteChars().forEach((c, i) => {
    vocab[c] = i;
  });
  MERGES.forEach(([a, b], i) => {
    vocab[a + b] = 256 + i;
  });
  writeFileSync(
    join(dir, 'tokenizer.json'),
    JSON.stringify({
      version: '1.0',
      added_tokens: SPECIAL.map((content, i) => ({
        id: 256 + MERGES.length + i,
        content,
        special: true,
        lstrip: false,
        rstrip: false,
        single_word: false,
        normalized: false,
      })),
      normalizer: null,
      pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, use_regex: true, trim_offsets: true },
      decoder: { type: 'ByteLevel' },
      model: { type: 'BPE', vocab, merges: MERGES.map(([a, b]) => `${a} ${b}`) },
    }),
  );
  writeFileSync(join(dir, 'chat_template.jinja'), QWEN3_TEMPLATE);
  return dir;
}
