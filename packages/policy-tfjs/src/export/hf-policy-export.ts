// Writes an HfPolicy state (a fine-tune of a Qwen3 or Llama model directory: every weight trained,
// or LoRA adapters) in Hugging Face's formats. `merge` gives a whole model directory that
// transformers' AutoModelForCausalLM loads: the base's config.json (its dtype set to float32) and
// tokenizer files, copied, and one model.safetensors of the base's weights with the trained ones in
// their place and every adapter merged in, W + (alpha/rank)·B·A, all in float32. `adapter` gives a
// LoRA state as a PEFT adapter (adapter_config.json and adapter_model.safetensors under PEFT's
// tensor names) that PeftModel.from_pretrained puts on the base model. The state, its base model
// directory and every tensor are read and checked before the first file is written.
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CheckpointError, describeIssues, InvalidArgumentError, printable } from '@pilotrl/core';
import { expectedTensors, HF_ARCHITECTURES, type HfDecoderConfig } from '../hf/hf-config';
import {
  HF_POLICY_STATE_FILE,
  HF_TRAINABLE_FILE,
  type Manifest as HfPolicyManifest,
  type ResolvedLoraOptions,
  readManifest,
} from '../hf/hf-policy-state';
import { LORA_TARGET_MODULES, loraOptionsSchema } from '../hf/lora';
import { CONFIG_FILE, readHfConfig, readHfWeights, SINGLE_WEIGHTS_FILE } from '../hf/model-dir';
import { readSafetensors, readSafetensorsHeader } from '../hf/safetensors';
import type { HfExport } from './export-hf';
import { checkOutDir } from './out-dir';
import { type Float32Tensor, writeSafetensorsFile } from './safetensors-writer';

/** What a LoRA state exports as: a whole model with the adapters merged in, or a PEFT adapter. */
export type HfLoraExport = 'merge' | 'adapter';

/** The files of a model directory, besides its config and weights, that a merged export copies when present. */
const COPIED_FILES = [
  'generation_config.json',
  'tokenizer.json',
  'tokenizer_config.json',
  'special_tokens_map.json',
  'added_tokens.json',
  'chat_template.jinja',
  'chat_template.json',
  'vocab.json',
  'merges.txt',
];
export const ADAPTER_CONFIG_FILE = 'adapter_config.json';
export const ADAPTER_WEIGHTS_FILE = 'adapter_model.safetensors';
/** What PEFT puts before a causal LM's own weight names in an adapter file. */
export const PEFT_PREFIX = 'base_model.model.';

interface TrainedTensor {
  readonly shape: readonly number[];
  readonly data: Float32Array;
}

interface CheckedState {
  readonly manifest: HfPolicyManifest;
  readonly config: HfDecoderConfig;
  readonly lora: ResolvedLoraOptions | null;
  /** The trained weights by our names (a base weight's name, or `<layer>.lora_A.weight` and `.lora_B.weight`). */
  readonly trained: ReadonlyMap<string, TrainedTensor>;
}

/** The layer whose matrix `weightName` is when it is a LoRA target (`model.layers.0.self_attn.q_proj`). */
function adaptedLayer(weightName: string, targetModules: readonly string[]): string | undefined {
  const match = /^(model\.layers\.\d+\.\w+\.(\w+))\.weight$/.exec(weightName);
  return match !== null && targetModules.includes(match[2]!) ? match[1] : undefined;
}

/** The weights a state trains, with their shapes: LoRA's A and B of every adapted layer, or every weight. */
function trainedShapes(config: HfDecoderConfig, lora: ResolvedLoraOptions | null) {
  const all = expectedTensors(config);
  if (lora === null) return all;
  const shapes = new Map<string, readonly number[]>();
  for (const [name, shape] of all) {
    const layer = adaptedLayer(name, lora.targetModules);
    if (layer === undefined) continue;
    const [out, inputs] = shape as [number, number];
    shapes.set(`${layer}.lora_A.weight`, [lora.rank, inputs]);
    shapes.set(`${layer}.lora_B.weight`, [out, lora.rank]);
  }
  return shapes;
}

/**
 * Reads the state in `stateDir` and its trained weights, after checking that its base model
 * directory is where it was and still has the config the state was trained on, that an adapter is
 * only asked of a LoRA state, and that the weights file holds exactly the trained tensors.
 */
async function readState(stateDir: string, mode: HfLoraExport): Promise<CheckedState> {
  const manifestFile = join(stateDir, HF_POLICY_STATE_FILE);
  const manifest = await readManifest(manifestFile);
  if (mode === 'adapter' && manifest.lora === null) {
    throw new InvalidArgumentError(
      `${manifestFile}: the state trains every weight of its model (lora is null), so it has no LoRA adapter to export; export it merged, as a whole model`,
    );
  }
  let lora: ResolvedLoraOptions | null = null;
  if (manifest.lora !== null) {
    const parsed = loraOptionsSchema.safeParse(manifest.lora);
    if (!parsed.success) {
      throw new CheckpointError(
        `${manifestFile}: lora is not a LoRA configuration: ${describeIssues(parsed.error.issues).join('; ')}`,
      );
    }
    const unknown = parsed.data.targetModules.find(
      (m) => !(LORA_TARGET_MODULES as readonly string[]).includes(m),
    );
    if (unknown !== undefined) {
      throw new CheckpointError(
        `${manifestFile}: lora.targetModules holds "${printable(unknown, 40)}", not one of ${LORA_TARGET_MODULES.join(', ')}`,
      );
    }
    lora = parsed.data;
  }
  const baseDir = manifest.base.dir;
  const baseConfigFile = join(baseDir, CONFIG_FILE);
  if (!existsSync(baseConfigFile)) {
    throw new CheckpointError(
      `${manifestFile}: the base model ${baseDir} is gone (no ${CONFIG_FILE} there); the export needs the model the state was trained on, in that directory`,
    );
  }
  const config = await readHfConfig(baseDir);
  const current: Record<string, unknown> = { ...config };
  for (const key of new Set([...Object.keys(current), ...Object.keys(manifest.base.config)])) {
    const saved = JSON.stringify(manifest.base.config[key]);
    const now = JSON.stringify(current[key]);
    if (saved !== now) {
      throw new CheckpointError(
        `${manifestFile}: base.config.${key} is ${saved} but ${baseConfigFile} now gives ${now}; the base model changed since the state was trained: restore the model it was trained on`,
      );
    }
  }
  const expected = trainedShapes(config, lora);
  const weightsFile = join(stateDir, HF_TRAINABLE_FILE);
  const header = await readSafetensorsHeader(weightsFile);
  for (const name of header.tensors.keys()) {
    if (!expected.has(name)) {
      throw new CheckpointError(
        `${weightsFile}: tensor "${printable(name, 120)}" is not a weight this state trains`,
      );
    }
  }
  for (const [name, shape] of expected) {
    const entry = header.tensors.get(name);
    if (entry === undefined) throw new CheckpointError(`${weightsFile}: has no tensor "${name}"`);
    if (entry.shape.join(',') !== shape.join(',')) {
      throw new CheckpointError(
        `${weightsFile}: tensor "${name}" has shape [${entry.shape.join(', ')}] but the base model's config gives [${shape.join(', ')}]`,
      );
    }
  }
  const values = await readSafetensors(header, expected.keys());
  const trained = new Map([...expected].map(([name, shape]) => [name, { shape, data: values.get(name)! }]));
  return { manifest, config, lora, trained };
}

/** W + scale·B·A for W [out, in], A [rank, in] and B [out, rank]; each row's update summed in float64. */
export function mergeLora(
  weight: Float32Array,
  [out, inputs]: readonly [number, number],
  a: Float32Array,
  b: Float32Array,
  scale: number,
): Float32Array {
  const rank = a.length / inputs;
  const merged = new Float32Array(weight.length);
  const update = new Float64Array(inputs);
  for (let o = 0; o < out; o++) {
    update.fill(0);
    for (let r = 0; r < rank; r++) {
      const coefficient = b[o * rank + r]!;
      for (let i = 0; i < inputs; i++) update[i]! += coefficient * a[r * inputs + i]!;
    }
    for (let i = 0; i < inputs; i++) merged[o * inputs + i] = weight[o * inputs + i]! + scale * update[i]!;
  }
  return merged;
}

/** The base model's weights with the trained ones in their place and every adapter merged in. */
async function mergedWeights(state: CheckedState): Promise<Float32Tensor[]> {
  const { tensors } = await readHfWeights(state.manifest.base.dir);
  const { lora, trained } = state;
  return [...tensors].map(([name, { shape, values }]) => {
    const replaced = trained.get(name);
    if (replaced !== undefined) return { name, shape, data: replaced.data };
    const layer = lora === null ? undefined : adaptedLayer(name, lora.targetModules);
    if (lora === null || layer === undefined) return { name, shape, data: values };
    const a = trained.get(`${layer}.lora_A.weight`)!.data;
    const b = trained.get(`${layer}.lora_B.weight`)!.data;
    const data = mergeLora(values, shape as [number, number], a, b, lora.alpha / lora.rank);
    return { name, shape, data };
  });
}

/** The base's config.json as it is, but for its dtype: the weights are written in float32. */
async function mergedConfig(baseDir: string): Promise<Record<string, unknown>> {
  const config = JSON.parse(await readFile(join(baseDir, CONFIG_FILE), 'utf8')) as Record<string, unknown>;
  // transformers 5 reads `dtype`, older versions `torch_dtype`; either would load float32 weights in the base's dtype.
  if ('torch_dtype' in config) config.torch_dtype = 'float32';
  if ('dtype' in config || !('torch_dtype' in config)) config.dtype = 'float32';
  return config;
}

/** PEFT's adapter_config.json of a LoRA state on `baseDir`. */
function adapterConfig(baseDir: string, lora: ResolvedLoraOptions): Record<string, unknown> {
  return {
    peft_type: 'LORA',
    task_type: 'CAUSAL_LM',
    base_model_name_or_path: baseDir,
    r: lora.rank,
    lora_alpha: lora.alpha,
    target_modules: [...lora.targetModules].sort(),
    lora_dropout: lora.dropout,
    bias: 'none',
    fan_in_fan_out: false,
    inference_mode: true,
    init_lora_weights: true,
    use_rslora: false,
    use_dora: false,
    modules_to_save: null,
    layers_to_transform: null,
    layers_pattern: null,
    rank_pattern: {},
    alpha_pattern: {},
  };
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/**
 * Exports the HfPolicy state in `stateDir` (written by `saveState`) to `outDir`, a new or empty
 * directory: a whole model (`merge`) or, for a LoRA state, a PEFT adapter (`adapter`).
 */
export async function exportHfPolicyState(
  stateDir: string,
  outDir: string,
  mode: HfLoraExport,
): Promise<HfExport> {
  await checkOutDir(outDir);
  const state = await readState(stateDir, mode);
  const baseDir = state.manifest.base.dir;
  const version = state.manifest.version;
  if (mode === 'adapter') {
    // readState refuses an adapter of a state without LoRA.
    const lora = state.lora!;
    const tensors = [...state.trained].map(([name, { shape, data }]) => ({
      name: `${PEFT_PREFIX}${name}`,
      shape,
      data,
    }));
    await mkdir(outDir, { recursive: true });
    await writeFile(join(outDir, ADAPTER_CONFIG_FILE), json(adapterConfig(baseDir, lora)));
    await writeSafetensorsFile(join(outDir, ADAPTER_WEIGHTS_FILE), tensors, { format: 'pt' });
    return {
      files: [ADAPTER_CONFIG_FILE, ADAPTER_WEIGHTS_FILE],
      parameters: tensors.reduce((n, t) => n + t.data.length, 0),
      version,
      architecture: 'PEFT LoRA adapter',
    };
  }
  const config = await mergedConfig(baseDir);
  const copied: [string, Buffer][] = [];
  for (const name of COPIED_FILES) {
    const file = join(baseDir, name);
    if (existsSync(file)) copied.push([name, await readFile(file)]);
  }
  const tensors = await mergedWeights(state);
  await mkdir(outDir, { recursive: true });
  await writeFile(join(outDir, CONFIG_FILE), json(config));
  for (const [name, contents] of copied) await writeFile(join(outDir, name), contents);
  await writeSafetensorsFile(join(outDir, SINGLE_WEIGHTS_FILE), tensors, { format: 'pt' });
  return {
    files: [CONFIG_FILE, ...copied.map(([name]) => name), SINGLE_WEIGHTS_FILE],
    parameters: tensors.reduce((n, t) => n + t.data.length, 0),
    version,
    architecture: HF_ARCHITECTURES[state.config.modelType],
  };
}
