// Our decoder as transformers' GPT2LMHeadModel, which computes the same function: pre-LayerNorm
// blocks (eps 1e-5) with fused QKV laid out [q heads | k heads | v heads], learned positions, the
// tanh-approximate GELU ("gelu_new"), biases everywhere and the output projection tied to the token
// embedding. GPT-2's Conv1D keeps its weight as [in, out] and computes x·W + b, the layout our
// weights already have, so every weight is copied as it is. The value head is not part of a
// causal LM and is left out.
import { InvalidArgumentError } from '@pilotrl/core';
import type { ModelConfig } from '../model';
import { END_ID, PAD_ID } from '../tokenizer';
import type { Float32Tensor } from './safetensors-writer';

/** Our weight names for one layer and the GPT-2 module paths they become (under `transformer.h.<l>.`). */
const LAYER_WEIGHTS = [
  ['ln1.g', 'ln_1.weight'],
  ['ln1.b', 'ln_1.bias'],
  ['attn.wqkv', 'attn.c_attn.weight'],
  ['attn.bqkv', 'attn.c_attn.bias'],
  ['attn.wo', 'attn.c_proj.weight'],
  ['attn.bo', 'attn.c_proj.bias'],
  ['ln2.g', 'ln_2.weight'],
  ['ln2.b', 'ln_2.bias'],
  ['mlp.w1', 'mlp.c_fc.weight'],
  ['mlp.b1', 'mlp.c_fc.bias'],
  ['mlp.w2', 'mlp.c_proj.weight'],
  ['mlp.b2', 'mlp.c_proj.bias'],
] as const;

/** Each GPT-2 tensor name and the name of our weight it is copied from, in file order. */
export function gpt2WeightNames(config: ModelConfig): [gpt2: string, ours: string][] {
  const names: [string, string][] = [
    ['transformer.wte.weight', 'wte'],
    ['transformer.wpe.weight', 'wpe'],
  ];
  for (let l = 0; l < config.nLayers; l++) {
    for (const [ours, theirs] of LAYER_WEIGHTS) names.push([`transformer.h.${l}.${theirs}`, `h${l}.${ours}`]);
  }
  names.push(['transformer.ln_f.weight', 'lnf.g'], ['transformer.ln_f.bias', 'lnf.b']);
  return names;
}

/** Our weight as the checkpoint holds it: values and shape. */
export interface NamedWeight {
  readonly shape: readonly number[];
  readonly data: Float32Array;
}

/** The GPT-2 tensors of our weights (`weight(name)` reads one), checked against `config`'s shapes. */
export function gpt2Tensors(
  config: ModelConfig,
  weight: (name: string) => NamedWeight | undefined,
): Float32Tensor[] {
  const d = config.dModel;
  const f = d * config.mlpRatio;
  const expected: Record<string, number[]> = {
    wte: [config.vocabSize, d],
    wpe: [config.contextLength, d],
    'lnf.g': [d],
    'lnf.b': [d],
  };
  const layerShapes: Record<string, number[]> = {
    'ln1.g': [d],
    'ln1.b': [d],
    'attn.wqkv': [d, 3 * d],
    'attn.bqkv': [3 * d],
    'attn.wo': [d, d],
    'attn.bo': [d],
    'ln2.g': [d],
    'ln2.b': [d],
    'mlp.w1': [d, f],
    'mlp.b1': [f],
    'mlp.w2': [f, d],
    'mlp.b2': [d],
  };
  return gpt2WeightNames(config).map(([name, ours]) => {
    const want = expected[ours] ?? layerShapes[ours.slice(ours.indexOf('.') + 1)]!;
    const found = weight(ours);
    if (found === undefined || found.shape.join(',') !== want.join(',')) {
      throw new InvalidArgumentError(
        `weight ${ours} is ${found === undefined ? 'missing' : `of shape [${found.shape}]`}, but the model config needs [${want}]`,
      );
    }
    return { name, shape: want, data: found.data };
  });
}

/** transformers' config.json of the GPT2LMHeadModel equal to a model of `config`. */
export function gpt2Config(config: ModelConfig): Record<string, unknown> {
  return {
    architectures: ['GPT2LMHeadModel'],
    model_type: 'gpt2',
    vocab_size: config.vocabSize,
    n_positions: config.contextLength,
    n_embd: config.dModel,
    n_layer: config.nLayers,
    n_head: config.nHeads,
    n_inner: config.dModel * config.mlpRatio,
    activation_function: 'gelu_new',
    layer_norm_epsilon: 1e-5,
    resid_pdrop: 0,
    embd_pdrop: 0,
    attn_pdrop: 0,
    initializer_range: 0.02,
    scale_attn_weights: true,
    scale_attn_by_inverse_layer_idx: false,
    reorder_and_upcast_attn: false,
    tie_word_embeddings: true,
    use_cache: true,
    bos_token_id: END_ID,
    eos_token_id: END_ID,
    pad_token_id: PAD_ID,
  };
}

/** generation_config.json: generation stops at our end token. */
export function gpt2GenerationConfig(): Record<string, unknown> {
  return { bos_token_id: END_ID, eos_token_id: END_ID, pad_token_id: PAD_ID };
}
