import { describe, expect, it } from 'vitest';
import { modelConfigSchema, parameterCount } from '../model';
import { gpt2Config, gpt2GenerationConfig, gpt2Tensors, gpt2WeightNames } from './gpt2-weights';

const config = modelConfigSchema.parse({
  vocabSize: 300,
  dModel: 16,
  nLayers: 2,
  nHeads: 4,
  contextLength: 24,
  mlpRatio: 3,
  valueHead: true,
});

/** Our weights of `config` as the model builds them: shapes from model.ts's names. */
function ourShape(name: string): number[] {
  const d = config.dModel;
  const f = d * config.mlpRatio;
  const shapes: Record<string, number[]> = {
    wte: [config.vocabSize, d],
    wpe: [config.contextLength, d],
    'attn.wqkv': [d, 3 * d],
    'attn.bqkv': [3 * d],
    'attn.wo': [d, d],
    'mlp.w1': [d, f],
    'mlp.b1': [f],
    'mlp.w2': [f, d],
  };
  return shapes[name] ?? shapes[name.slice(name.indexOf('.') + 1)] ?? [d];
}
/** A value of its own for each name, so a weight copied to the wrong place shows. */
const mark = (name: string) => [...name].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 65_521, 7);
const weight = (name: string) => {
  const shape = ourShape(name);
  return { shape, data: new Float32Array(shape.reduce((a, b) => a * b, 1)).fill(mark(name)) };
};

describe('GPT-2 weight mapping', () => {
  it("names every weight of the language model once, in GPT-2's Conv1D [in, out] shapes", () => {
    const tensors = new Map(gpt2Tensors(config, weight).map((t) => [t.name, t]));
    expect(tensors.size).toBe(4 + 12 * config.nLayers);
    // Every weight but the value head's (d + 1), the output projection being tied to wte.
    const written = [...tensors.values()].reduce((n, t) => n + t.data.length, 0);
    expect(written).toBe(parameterCount(config) - config.dModel - 1);
    expect(tensors.get('transformer.wte.weight')!.shape).toEqual([300, 16]);
    expect(tensors.get('transformer.wpe.weight')!.shape).toEqual([24, 16]);
    expect(tensors.get('transformer.h.1.attn.c_attn.weight')!.shape).toEqual([16, 48]);
    expect(tensors.get('transformer.h.1.attn.c_proj.weight')!.shape).toEqual([16, 16]);
    expect(tensors.get('transformer.h.0.mlp.c_fc.weight')!.shape).toEqual([16, 48]);
    expect(tensors.get('transformer.h.0.mlp.c_fc.bias')!.shape).toEqual([48]);
    expect(tensors.get('transformer.h.0.mlp.c_proj.weight')!.shape).toEqual([48, 16]);
    expect(tensors.get('transformer.ln_f.weight')!.shape).toEqual([16]);
    expect(tensors.has('lm_head.weight')).toBe(false);
  });

  it('copies each of our weights to its GPT-2 name unchanged', () => {
    const pairs = new Map(gpt2WeightNames(config));
    expect(pairs.get('transformer.h.1.ln_2.bias')).toBe('h1.ln2.b');
    expect(pairs.get('transformer.h.0.attn.c_attn.bias')).toBe('h0.attn.bqkv');
    const tensors = gpt2Tensors(config, weight);
    for (const tensor of tensors) expect(tensor.data).toEqual(weight(pairs.get(tensor.name)!).data);
    expect(new Set(tensors.map((t) => t.data[0])).size).toBe(tensors.length);
  });

  it('refuses a missing or misshaped weight, naming it', () => {
    expect(() => gpt2Tensors(config, (name) => (name === 'h1.mlp.w2' ? undefined : weight(name)))).toThrow(
      'weight h1.mlp.w2 is missing, but the model config needs [48,16]',
    );
    expect(() =>
      gpt2Tensors(config, (name) =>
        name === 'h0.attn.wqkv' ? { shape: [48, 16], data: new Float32Array(768) } : weight(name),
      ),
    ).toThrow('weight h0.attn.wqkv is of shape [48,16], but the model config needs [16,48]');
  });

  it('config.json describes the same model: gelu_new, eps 1e-5, tied embeddings, our MLP width', () => {
    expect(gpt2Config(config)).toMatchObject({
      architectures: ['GPT2LMHeadModel'],
      model_type: 'gpt2',
      vocab_size: 300,
      n_positions: 24,
      n_embd: 16,
      n_layer: 2,
      n_head: 4,
      n_inner: 48,
      activation_function: 'gelu_new',
      layer_norm_epsilon: 1e-5,
      tie_word_embeddings: true,
      eos_token_id: 1,
      pad_token_id: 0,
    });
    // Generation stops at <|end|>, padding is <pad>.
    expect(gpt2GenerationConfig()).toEqual({ bos_token_id: 1, eos_token_id: 1, pad_token_id: 0 });
  });
});
