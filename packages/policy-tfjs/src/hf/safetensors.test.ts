// safetensors files and Hugging Face model directories written byte by byte here: values read back
// from F32, F16 and BF16, and every refusal (truncated, unknown dtype, wrong shape, missing shard,
// another architecture) naming the file and the tensor or field, before any weight is read.
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readHfWeights } from './model-dir';
import { readSafetensors, readSafetensorsHeader } from './safetensors';

const scratch = mkdtempSync(join(tmpdir(), 'pilotrl-safetensors-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface RawTensor {
  dtype: string;
  shape: number[];
  data: Uint8Array;
}

function f32(values: number[]): Uint8Array {
  return new Uint8Array(Float32Array.from(values).buffer);
}

/** A safetensors file: the header's JSON padded with spaces to 8 bytes, as the format's writer does. */
function encode(
  tensors: Record<string, RawTensor>,
  headerOverride?: (header: Record<string, unknown>) => void,
): Buffer {
  const header: Record<string, unknown> = { __metadata__: { format: 'pt' } };
  let offset = 0;
  for (const [name, t] of Object.entries(tensors)) {
    header[name] = { dtype: t.dtype, shape: t.shape, data_offsets: [offset, offset + t.data.length] };
    offset += t.data.length;
  }
  headerOverride?.(header);
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(Buffer.byteLength(json)));
  return Buffer.concat([length, Buffer.from(json), ...Object.values(tensors).map((t) => t.data)]);
}

let fileCount = 0;
function writeTemp(bytes: Buffer): string {
  const file = join(scratch, `t${fileCount++}.safetensors`);
  writeFileSync(file, bytes);
  return file;
}

describe('safetensors', () => {
  it('reads F32, F16 and BF16 to float32', async () => {
    // float16: 1.0 = 0x3c00, -2.5 = 0xc100, the smallest subnormal 2^-24 = 0x0001, 65504 = 0x7bff.
    const half = new Uint8Array(new Uint16Array([0x3c00, 0xc100, 0x0001, 0x7bff]).buffer);
    // bfloat16 is float32's upper 16 bits: 1.5 = 0x3fc0, -0.15625 = 0xbe20.
    const bf = new Uint8Array(new Uint16Array([0x3fc0, 0xbe20]).buffer);
    const file = writeTemp(
      encode({
        a: { dtype: 'F32', shape: [2, 2], data: f32([0.1, -2, 3.5, 1e-8]) },
        b: { dtype: 'F16', shape: [4], data: half },
        c: { dtype: 'BF16', shape: [1, 2], data: bf },
      }),
    );
    const header = await readSafetensorsHeader(file);
    expect(header.metadata).toEqual({ format: 'pt' });
    expect(header.tensors.get('a')?.shape).toEqual([2, 2]);
    const values = await readSafetensors(header, ['a', 'b', 'c']);
    expect(Array.from(values.get('a')!)).toEqual(Array.from(Float32Array.from([0.1, -2, 3.5, 1e-8])));
    expect(Array.from(values.get('b')!)).toEqual([1, -2.5, 2 ** -24, 65504]);
    expect(Array.from(values.get('c')!)).toEqual([1.5, -0.15625]);
  });

  it('refuses a header length past the end of the file', async () => {
    const bytes = encode({ a: { dtype: 'F32', shape: [1], data: f32([1]) } });
    bytes.writeBigUInt64LE(BigInt(bytes.length), 0);
    const file = writeTemp(bytes);
    await expect(readSafetensorsHeader(file)).rejects.toThrow(
      `${file}: its header length is ${bytes.length} bytes`,
    );
  });

  it('refuses a truncated file, naming the tensor cut off', async () => {
    const file = writeTemp(
      encode({
        first: { dtype: 'F32', shape: [2], data: f32([1, 2]) },
        last: { dtype: 'F32', shape: [3], data: f32([1, 2, 3]) },
      }),
    );
    truncateSync(file, (await import('node:fs')).statSync(file).size - 4);
    await expect(readSafetensorsHeader(file)).rejects.toThrow(
      new RegExp(`${file}: tensor "last" ends at byte \\d+ but the file has \\d+ bytes: it is truncated`),
    );
  });

  it('refuses dtypes it does not read and names that are not dtypes', async () => {
    const int = writeTemp(encode({ ids: { dtype: 'I64', shape: [1], data: new Uint8Array(8) } }));
    await expect(readSafetensorsHeader(int)).rejects.toThrow(
      `${int}: tensor "ids" has dtype "I64", which we do not read`,
    );
    const odd = writeTemp(encode({ w: { dtype: 'F99', shape: [1], data: new Uint8Array(4) } }));
    await expect(readSafetensorsHeader(odd)).rejects.toThrow(
      `${odd}: tensor "w" has dtype "F99", not a safetensors dtype`,
    );
  });

  it('refuses offsets that do not match the shape, and gaps between tensors', async () => {
    const wrongSize = writeTemp(encode({ w: { dtype: 'F32', shape: [3], data: f32([1, 2]) } }));
    await expect(readSafetensorsHeader(wrongSize)).rejects.toThrow(
      `${wrongSize}: tensor "w" spans 8 bytes but its shape [3] of F32 needs 12`,
    );
    const gap = writeTemp(
      encode(
        { a: { dtype: 'F32', shape: [1], data: f32([1]) }, b: { dtype: 'F32', shape: [1], data: f32([2]) } },
        (h) => {
          (h.b as { data_offsets: number[] }).data_offsets = [4, 8];
          (h.a as { data_offsets: number[] }).data_offsets = [4, 8];
        },
      ),
    );
    await expect(readSafetensorsHeader(gap)).rejects.toThrow(/starts at data byte 4, expected 0/);
  });
});

// A Llama of 1 layer, hidden 4, 2 heads of 2, 1 key-value head, MLP 6, vocabulary 5, untied.
const llamaConfig = {
  architectures: ['LlamaForCausalLM'],
  model_type: 'llama',
  vocab_size: 5,
  hidden_size: 4,
  intermediate_size: 6,
  num_hidden_layers: 1,
  num_attention_heads: 2,
  num_key_value_heads: 1,
  rms_norm_eps: 1e-6,
  rope_parameters: { rope_type: 'default', rope_theta: 10000 },
  tie_word_embeddings: false,
};
const llamaShapes: Record<string, number[]> = {
  'model.embed_tokens.weight': [5, 4],
  'model.layers.0.input_layernorm.weight': [4],
  'model.layers.0.post_attention_layernorm.weight': [4],
  'model.layers.0.self_attn.q_proj.weight': [4, 4],
  'model.layers.0.self_attn.k_proj.weight': [2, 4],
  'model.layers.0.self_attn.v_proj.weight': [2, 4],
  'model.layers.0.self_attn.o_proj.weight': [4, 4],
  'model.layers.0.mlp.gate_proj.weight': [6, 4],
  'model.layers.0.mlp.up_proj.weight': [6, 4],
  'model.layers.0.mlp.down_proj.weight': [4, 6],
  'model.norm.weight': [4],
  'lm_head.weight': [5, 4],
};

function tensorsOf(shapes: Record<string, number[]>, dtype = 'F32'): Record<string, RawTensor> {
  const out: Record<string, RawTensor> = {};
  let k = 0;
  for (const [name, shape] of Object.entries(shapes)) {
    const n = shape.reduce((a, b) => a * b, 1);
    const values = Array.from({ length: n }, () => (k++ % 7) / 8);
    const data =
      dtype === 'BF16'
        ? new Uint8Array(
            new Uint16Array(new Uint32Array(Float32Array.from(values).buffer).map((b) => b >>> 16)).buffer,
          )
        : f32(values);
    out[name] = { dtype, shape, data };
  }
  return out;
}

let dirCount = 0;
/** A model directory; `shards` splits the tensors into that many files with an index. */
function modelDir(config: object, tensors: Record<string, RawTensor>, shards = 1): string {
  const dir = join(scratch, `model${dirCount++}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  const names = Object.keys(tensors);
  if (shards === 1) {
    writeFileSync(join(dir, 'model.safetensors'), encode(tensors));
    return dir;
  }
  const weightMap: Record<string, string> = {};
  for (let s = 0; s < shards; s++) {
    const file = `model-0000${s + 1}-of-0000${shards}.safetensors`;
    const part = names.filter((_, i) => i % shards === s);
    for (const name of part) weightMap[name] = file;
    writeFileSync(join(dir, file), encode(Object.fromEntries(part.map((n) => [n, tensors[n]!]))));
  }
  writeFileSync(
    join(dir, 'model.safetensors.index.json'),
    JSON.stringify({ metadata: {}, weight_map: weightMap }),
  );
  return dir;
}

describe('Hugging Face model directories', () => {
  it('reads a sharded bf16 Llama with every tensor in the shape config.json gives', async () => {
    const dir = modelDir(llamaConfig, tensorsOf(llamaShapes, 'BF16'), 3);
    const { config, tensors } = await readHfWeights(dir);
    expect(config).toMatchObject({ modelType: 'llama', numKvHeads: 1, headDim: 2, ropeTheta: 10000 });
    expect([...tensors.keys()].sort()).toEqual(Object.keys(llamaShapes).sort());
    expect(tensors.get('model.layers.0.self_attn.k_proj.weight')?.shape).toEqual([2, 4]);
    expect(Array.from(tensors.get('model.embed_tokens.weight')!.values.slice(0, 3))).toEqual([
      0, 0.125, 0.25,
    ]);
  });

  it('refuses a shard the index lists that is missing, naming it and a tensor it holds', async () => {
    const dir = modelDir(llamaConfig, tensorsOf(llamaShapes), 2);
    rmSync(join(dir, 'model-00002-of-00002.safetensors'));
    await expect(readHfWeights(dir)).rejects.toThrow(
      `${join(dir, 'model-00002-of-00002.safetensors')}: missing, but model.safetensors.index.json puts tensor "model.layers.0.input_layernorm.weight" there`,
    );
  });

  it('refuses a tensor whose shape is not the one config.json gives', async () => {
    const dir = modelDir({ ...llamaConfig, num_key_value_heads: 2 }, tensorsOf(llamaShapes));
    await expect(readHfWeights(dir)).rejects.toThrow(
      `${join(dir, 'model.safetensors')}: tensor "model.layers.0.self_attn.k_proj.weight" has shape [2, 4] but config.json gives [4, 4]`,
    );
  });

  it('refuses a missing tensor and one the architecture does not have', async () => {
    const { 'lm_head.weight': _, ...tied } = llamaShapes;
    const missing = modelDir(llamaConfig, tensorsOf(tied));
    await expect(readHfWeights(missing)).rejects.toThrow(/model\.safetensors: no tensor "lm_head\.weight"/);
    const extra = modelDir(
      llamaConfig,
      tensorsOf({ ...llamaShapes, 'model.layers.0.self_attn.q_norm.weight': [2] }),
    );
    await expect(readHfWeights(extra)).rejects.toThrow(
      /tensor "model\.layers\.0\.self_attn\.q_norm\.weight" is not part of a llama model/,
    );
  });

  it('refuses other architectures and rope scaling in config.json, naming the field', async () => {
    const gpt2 = modelDir({ ...llamaConfig, model_type: 'gpt2' }, tensorsOf(llamaShapes));
    await expect(readHfWeights(gpt2)).rejects.toThrow(
      `${join(gpt2, 'config.json')}: model_type "gpt2" is not supported; the architectures read are llama and qwen3`,
    );
    const scaled = modelDir(
      { ...llamaConfig, rope_parameters: { rope_type: 'llama3', rope_theta: 5e5, factor: 8 } },
      tensorsOf(llamaShapes),
    );
    await expect(readHfWeights(scaled)).rejects.toThrow(
      `${join(scaled, 'config.json')}: rope_parameters.rope_type is "llama3"; only the default (unscaled) rotary positions are implemented`,
    );
  });
});
