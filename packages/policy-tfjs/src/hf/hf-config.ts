// A Hugging Face `config.json` of the decoder architectures we run (Llama and Qwen3), checked and
// resolved to one shape: what is left to a default in transformers is filled as transformers fills
// it, and what we do not implement (another architecture, rope scaling, sliding windows, an
// activation other than SiLU) is refused naming the file and the field. Also the tensors such a
// model must hold, by Hugging Face name, with their shapes.
import { CheckpointError, describeIssues } from '@pilotrl/core';
import { z } from 'zod';

export const HF_ARCHITECTURES = { llama: 'LlamaForCausalLM', qwen3: 'Qwen3ForCausalLM' } as const;
export type HfModelType = keyof typeof HF_ARCHITECTURES;

export interface HfDecoderConfig {
  readonly modelType: HfModelType;
  readonly vocabSize: number;
  readonly hiddenSize: number;
  readonly intermediateSize: number;
  readonly numLayers: number;
  readonly numHeads: number;
  readonly numKvHeads: number;
  readonly headDim: number;
  readonly rmsNormEps: number;
  readonly ropeTheta: number;
  readonly maxPositions: number;
  readonly tieWordEmbeddings: boolean;
  /** Biases on q, k, v and o projections. */
  readonly attentionBias: boolean;
  /** Biases on the MLP's gate, up and down projections (Llama only). */
  readonly mlpBias: boolean;
  /** Per-head RMSNorm of queries and keys before the rotation (Qwen3). */
  readonly qkNorm: boolean;
  readonly bosTokenId: number | undefined;
  readonly eosTokenIds: readonly number[];
}

const tokenIds = z.union([z.number().int().nonnegative(), z.array(z.number().int().nonnegative())]).nullish();

const rawConfigSchema = z.looseObject({
  model_type: z.string(),
  architectures: z.array(z.string()).nullish(),
  vocab_size: z.number().int().positive(),
  hidden_size: z.number().int().positive(),
  intermediate_size: z.number().int().positive(),
  num_hidden_layers: z.number().int().positive(),
  num_attention_heads: z.number().int().positive(),
  num_key_value_heads: z.number().int().positive().nullish(),
  head_dim: z.number().int().positive().nullish(),
  hidden_act: z.string().default('silu'),
  rms_norm_eps: z.number().positive().default(1e-6),
  rope_theta: z.number().positive().nullish(),
  rope_scaling: z.unknown().nullish(),
  /** transformers 5 writes rope_theta and the scaling type here instead. */
  rope_parameters: z
    .looseObject({ rope_type: z.string().optional(), rope_theta: z.number().positive().optional() })
    .nullish(),
  max_position_embeddings: z.number().int().positive().default(2048),
  tie_word_embeddings: z.boolean().nullish(),
  attention_bias: z.boolean().default(false),
  mlp_bias: z.boolean().default(false),
  use_sliding_window: z.boolean().default(false),
  layer_types: z.array(z.string()).nullish(),
  pretraining_tp: z.number().int().nullish(),
  bos_token_id: tokenIds,
  eos_token_id: tokenIds,
});

/** Checks a parsed `config.json` (`file` is its path, named in every refusal). */
export function parseHfConfig(file: string, json: unknown): HfDecoderConfig {
  const type = (json as { model_type?: unknown } | null)?.model_type;
  if (typeof type !== 'string' || !(type in HF_ARCHITECTURES)) {
    throw new CheckpointError(
      `${file}: model_type ${JSON.stringify(type) ?? 'is missing'}${typeof type === 'string' ? ' is not supported' : ''}; the architectures read are ${Object.keys(HF_ARCHITECTURES).join(' and ')} (${Object.values(HF_ARCHITECTURES).join(', ')})`,
    );
  }
  const parsed = rawConfigSchema.safeParse(json);
  if (!parsed.success) {
    throw new CheckpointError(
      `${file}: not a ${type} config:\n  ${describeIssues(parsed.error.issues).join('\n  ')}`,
    );
  }
  const raw = parsed.data;
  const modelType = type as HfModelType;
  const refuse = (field: string, problem: string) => new CheckpointError(`${file}: ${field} ${problem}`);
  const expected = HF_ARCHITECTURES[modelType];
  if (raw.architectures?.some((a) => a !== expected)) {
    throw refuse(
      'architectures',
      `is ${JSON.stringify(raw.architectures)}; a ${modelType} model is read as ${expected} only`,
    );
  }
  if (raw.hidden_act !== 'silu')
    throw refuse('hidden_act', `is "${raw.hidden_act}"; only silu (SwiGLU) is implemented`);
  if (raw.rope_scaling != null) {
    throw refuse(
      'rope_scaling',
      `is set (${JSON.stringify(raw.rope_scaling)}); only unscaled rotary positions are implemented`,
    );
  }
  const ropeType = raw.rope_parameters?.rope_type;
  if (ropeType !== undefined && ropeType !== 'default') {
    throw refuse(
      'rope_parameters.rope_type',
      `is "${ropeType}"; only the default (unscaled) rotary positions are implemented`,
    );
  }
  const ropeTheta = raw.rope_parameters?.rope_theta ?? raw.rope_theta ?? 10000;
  if (modelType === 'qwen3' && raw.use_sliding_window) {
    throw refuse('use_sliding_window', 'is true; only full attention is implemented');
  }
  const otherLayer = raw.layer_types?.find((t) => t !== 'full_attention');
  if (otherLayer !== undefined)
    throw refuse('layer_types', `holds "${otherLayer}"; only full_attention is implemented`);
  if (raw.pretraining_tp != null && raw.pretraining_tp !== 1) {
    throw refuse('pretraining_tp', `is ${raw.pretraining_tp}; only 1 is implemented`);
  }
  if (modelType === 'qwen3' && raw.mlp_bias) throw refuse('mlp_bias', 'is true, which Qwen3 does not have');
  const numKvHeads = raw.num_key_value_heads ?? raw.num_attention_heads;
  if (raw.num_attention_heads % numKvHeads !== 0) {
    throw refuse(
      'num_key_value_heads',
      `(${numKvHeads}) must divide num_attention_heads (${raw.num_attention_heads})`,
    );
  }
  const headDim = raw.head_dim ?? raw.hidden_size / raw.num_attention_heads;
  if (!Number.isInteger(headDim) || headDim % 2 !== 0) {
    throw refuse('head_dim', `is ${headDim}; rotary positions need an even whole head size`);
  }
  const asList = (ids: number | number[] | null | undefined) =>
    ids == null ? [] : Array.isArray(ids) ? ids : [ids];
  return {
    modelType,
    vocabSize: raw.vocab_size,
    hiddenSize: raw.hidden_size,
    intermediateSize: raw.intermediate_size,
    numLayers: raw.num_hidden_layers,
    numHeads: raw.num_attention_heads,
    numKvHeads,
    headDim,
    rmsNormEps: raw.rms_norm_eps,
    ropeTheta,
    maxPositions: raw.max_position_embeddings,
    // Both architectures' config classes default to untied embeddings.
    tieWordEmbeddings: raw.tie_word_embeddings ?? false,
    attentionBias: raw.attention_bias,
    mlpBias: raw.mlp_bias,
    qkNorm: modelType === 'qwen3',
    bosTokenId: asList(raw.bos_token_id)[0],
    eosTokenIds: asList(raw.eos_token_id),
  };
}

/** Every tensor the model holds, by its Hugging Face name, with the shape the config gives it. */
export function expectedTensors(config: HfDecoderConfig): Map<string, readonly number[]> {
  const { hiddenSize: h, intermediateSize: m, headDim: d, numHeads, numKvHeads, vocabSize } = config;
  const shapes = new Map<string, readonly number[]>([['model.embed_tokens.weight', [vocabSize, h]]]);
  for (let i = 0; i < config.numLayers; i++) {
    const p = `model.layers.${i}`;
    shapes.set(`${p}.input_layernorm.weight`, [h]);
    shapes.set(`${p}.post_attention_layernorm.weight`, [h]);
    const projections: [string, number, number][] = [
      ['q_proj', numHeads * d, h],
      ['k_proj', numKvHeads * d, h],
      ['v_proj', numKvHeads * d, h],
      ['o_proj', h, numHeads * d],
    ];
    for (const [name, out, inp] of projections) {
      shapes.set(`${p}.self_attn.${name}.weight`, [out, inp]);
      if (config.attentionBias) shapes.set(`${p}.self_attn.${name}.bias`, [out]);
    }
    if (config.qkNorm) {
      shapes.set(`${p}.self_attn.q_norm.weight`, [d]);
      shapes.set(`${p}.self_attn.k_norm.weight`, [d]);
    }
    const mlp: [string, number, number][] = [
      ['gate_proj', m, h],
      ['up_proj', m, h],
      ['down_proj', h, m],
    ];
    for (const [name, out, inp] of mlp) {
      shapes.set(`${p}.mlp.${name}.weight`, [out, inp]);
      if (config.mlpBias) shapes.set(`${p}.mlp.${name}.bias`, [out]);
    }
  }
  shapes.set('model.norm.weight', [h]);
  if (!config.tieWordEmbeddings) shapes.set('lm_head.weight', [vocabSize, h]);
  return shapes;
}
