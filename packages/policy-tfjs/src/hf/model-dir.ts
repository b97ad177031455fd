// Reads the weights of a Hugging Face model directory: `config.json`, then `model.safetensors` or
// the shards that `model.safetensors.index.json` lists. Every header is read and checked first (the
// files' sizes, dtypes, each tensor's shape against the config, every tensor the architecture needs
// present once and nothing else), and only then is any weight read, each to float32.
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CheckpointError, printable } from '@pilotrl/core';
import { z } from 'zod';
import { expectedTensors, type HfDecoderConfig, parseHfConfig } from './hf-config';
import { readSafetensors, readSafetensorsHeader, type SafetensorsHeader } from './safetensors';

export const CONFIG_FILE = 'config.json';
export const SINGLE_WEIGHTS_FILE = 'model.safetensors';
export const WEIGHTS_INDEX_FILE = 'model.safetensors.index.json';
/** Tensors that older checkpoints save but that are computed, not learned (rotary frequencies). */
const IGNORED_TENSOR = /\.rotary_emb\.inv_freq$/;

export interface HfWeights {
  readonly config: HfDecoderConfig;
  /** Every tensor of the model by its Hugging Face name, float32, in the config's shape. */
  readonly tensors: ReadonlyMap<string, { readonly shape: readonly number[]; readonly values: Float32Array }>;
}

const unreadable = (file: string, error: unknown) =>
  new CheckpointError(
    `${file}: cannot read it (${(error as Error).message}); give a Hugging Face model directory`,
    { cause: error },
  );

function parseJson(file: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CheckpointError(`${file}: not JSON (${(error as Error).message})`, { cause: error });
  }
}

async function readJson(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw unreadable(file, error);
  }
  return parseJson(file, text);
}

/** Reads and checks `<dir>/config.json`. */
export async function readHfConfig(dir: string): Promise<HfDecoderConfig> {
  const file = join(dir, CONFIG_FILE);
  return parseHfConfig(file, await readJson(file));
}

/** `readHfConfig` without waiting, for checks where nothing can be awaited (a config's validation). */
export function readHfConfigSync(dir: string): HfDecoderConfig {
  const file = join(dir, CONFIG_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw unreadable(file, error);
  }
  return parseHfConfig(file, parseJson(file, text));
}

const indexSchema = z.looseObject({ weight_map: z.record(z.string(), z.string()) });
// A shard's name must stay inside the model directory.
const SHARD_NAME = /^[\w.-]+\.safetensors$/;

/** Which file holds each tensor: from the index when the model is sharded, else the single file. */
async function weightFiles(
  dir: string,
): Promise<{ shards: string[]; owner: Map<string, string> | undefined }> {
  const indexFile = join(dir, WEIGHTS_INDEX_FILE);
  if (existsSync(indexFile)) {
    const parsed = indexSchema.safeParse(await readJson(indexFile));
    if (!parsed.success)
      throw new CheckpointError(`${indexFile}: weight_map must map tensor names to shard files`);
    const owner = new Map<string, string>();
    for (const [tensor, shard] of Object.entries(parsed.data.weight_map)) {
      if (!SHARD_NAME.test(shard)) {
        throw new CheckpointError(
          `${indexFile}: tensor "${printable(tensor, 120)}" is mapped to "${printable(shard, 120)}", not a .safetensors file in the model directory`,
        );
      }
      owner.set(tensor, join(dir, shard));
    }
    return { shards: [...new Set(owner.values())], owner };
  }
  const single = join(dir, SINGLE_WEIGHTS_FILE);
  if (!existsSync(single)) {
    throw new CheckpointError(
      `${dir}: has neither ${SINGLE_WEIGHTS_FILE} nor ${WEIGHTS_INDEX_FILE}; only safetensors weights are read`,
    );
  }
  return { shards: [single], owner: undefined };
}

/** Checks every header against the config and the index; returns which header holds each tensor. */
async function checkHeaders(dir: string, config: HfDecoderConfig): Promise<Map<string, SafetensorsHeader>> {
  const { shards, owner } = await weightFiles(dir);
  const headers = new Map<string, SafetensorsHeader>();
  for (const shard of shards) {
    if (!existsSync(shard)) {
      const tensor = [...(owner ?? [])].find(([, file]) => file === shard)?.[0] ?? '';
      throw new CheckpointError(
        `${shard}: missing, but ${WEIGHTS_INDEX_FILE} puts tensor "${printable(tensor, 120)}" there (download the whole model)`,
      );
    }
    headers.set(shard, await readSafetensorsHeader(shard));
  }
  const expected = expectedTensors(config);
  const holder = new Map<string, SafetensorsHeader>();
  for (const header of headers.values()) {
    for (const entry of header.tensors.values()) {
      if (IGNORED_TENSOR.test(entry.name)) continue;
      const where = `${header.file}: tensor "${printable(entry.name, 120)}"`;
      const shape = expected.get(entry.name);
      if (shape === undefined) {
        // Qwen3 and Llama checkpoints with tied embeddings may still carry the output copy.
        if (entry.name === 'lm_head.weight' && config.tieWordEmbeddings) continue;
        throw new CheckpointError(
          `${where} is not part of a ${config.modelType} model with this config.json`,
        );
      }
      if (shape.length !== entry.shape.length || shape.some((n, i) => n !== entry.shape[i])) {
        throw new CheckpointError(
          `${where} has shape [${entry.shape.join(', ')}] but config.json gives [${shape.join(', ')}]`,
        );
      }
      const earlier = holder.get(entry.name);
      if (earlier !== undefined) throw new CheckpointError(`${where} is also in ${earlier.file}`);
      const listed = owner?.get(entry.name);
      if (owner !== undefined && listed !== header.file) {
        throw new CheckpointError(
          `${where} is not where ${WEIGHTS_INDEX_FILE} puts it (${listed ?? 'not listed'})`,
        );
      }
      holder.set(entry.name, header);
    }
  }
  for (const name of expected.keys()) {
    if (!holder.has(name)) {
      const listed = owner?.get(name);
      throw new CheckpointError(
        listed !== undefined
          ? `${listed}: has no tensor "${name}", which ${WEIGHTS_INDEX_FILE} puts there`
          : `${shards.join(', ')}: no tensor "${name}", which a ${config.modelType} model with this config.json needs`,
      );
    }
  }
  return holder;
}

/** Reads a Hugging Face model directory's config and weights, all checked before any weight is read. */
export async function readHfWeights(dir: string): Promise<HfWeights> {
  const config = await readHfConfig(dir);
  const holder = await checkHeaders(dir, config);
  const byFile = new Map<SafetensorsHeader, string[]>();
  for (const [name, header] of holder) byFile.set(header, [...(byFile.get(header) ?? []), name]);
  const tensors = new Map<string, { shape: readonly number[]; values: Float32Array }>();
  for (const [header, names] of byFile) {
    for (const [name, values] of await readSafetensors(header, names)) {
      tensors.set(name, { shape: header.tensors.get(name)!.shape, values });
    }
  }
  return { config, tensors };
}
