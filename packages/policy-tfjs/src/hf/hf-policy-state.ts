// HfPolicy's saved state, a directory of three files written atomically (`writeDirDurable`):
// `hf-policy.json` (format, the base model's directory and config, the LoRA options, the policy
// version, AdamW's step count), `trainable.safetensors` (the trained weights by Hugging Face name:
// the LoRA adapters with LoRA, every weight without) and `optimizer.safetensors` (AdamW's moments,
// `adam.m/<name>` and `adam.v/<name>`). The base weights stay in the model directory. Loading
// refuses a state made for another base model or other LoRA options, naming the file and the field,
// and reads and checks every tensor before it assigns any.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CheckpointError, describeIssues, printable } from '@pilotrl/core';
import * as tf from '@tensorflow/tfjs-core';
import { z } from 'zod';
import type { AdamW } from '../adamw';
import { restoreReplacedDir, writeDirDurable } from '../durable-fs';
import { encodeSafetensors, type Float32Tensor } from '../export/safetensors-writer';
import type { HfDecoderConfig } from './hf-config';
import type { loraOptionsSchema } from './lora';
import { readSafetensors, readSafetensorsHeader } from './safetensors';

export const HF_POLICY_STATE_FORMAT = 'pilotrl-hf-policy';
export const HF_POLICY_STATE_FORMAT_VERSION = 1;
export const HF_POLICY_STATE_FILE = 'hf-policy.json';
export const HF_TRAINABLE_FILE = 'trainable.safetensors';
export const HF_OPTIMIZER_FILE = 'optimizer.safetensors';

/** LoRA options as they were resolved (defaults filled in). */
export type ResolvedLoraOptions = z.output<typeof loraOptionsSchema>;

/** What identifies a state: the base model it trains and the adapters it adds. */
export interface HfPolicyIdentity {
  /** The base model's directory, absolute. */
  readonly baseDir: string;
  readonly baseConfig: HfDecoderConfig;
  readonly lora: ResolvedLoraOptions | null;
}

export interface HfPolicyStateContents extends HfPolicyIdentity {
  readonly version: number;
  /** The trained weights by name. */
  readonly weights: ReadonlyMap<string, tf.Variable>;
  readonly optimizer: AdamW;
}

const manifestSchema = z.object({
  format: z.literal(HF_POLICY_STATE_FORMAT),
  formatVersion: z.literal(HF_POLICY_STATE_FORMAT_VERSION),
  base: z.object({ dir: z.string(), config: z.record(z.string(), z.unknown()) }),
  lora: z.record(z.string(), z.unknown()).nullable(),
  version: z.number().int().nonnegative(),
  optimizerStep: z.number().int().nonnegative(),
});
export type Manifest = z.infer<typeof manifestSchema>;

/** Writes `contents` to `dir` atomically (a temporary sibling renamed into place). */
export async function writeHfPolicyState(dir: string, contents: HfPolicyStateContents): Promise<void> {
  const tensor = (name: string, variable: tf.Tensor): Float32Tensor => ({
    name,
    shape: variable.shape,
    data: variable.dataSync() as Float32Array,
  });
  const weights = [...contents.weights].map(([name, variable]) => tensor(name, variable));
  const moments = [...contents.optimizer.moments].flatMap(([name, { m, v }]) => [
    tensor(`adam.m/${name}`, m),
    tensor(`adam.v/${name}`, v),
  ]);
  const manifest: Manifest = {
    format: HF_POLICY_STATE_FORMAT,
    formatVersion: HF_POLICY_STATE_FORMAT_VERSION,
    base: { dir: contents.baseDir, config: { ...contents.baseConfig } },
    lora: contents.lora === null ? null : { ...contents.lora },
    version: contents.version,
    optimizerStep: contents.optimizer.step,
  };
  await writeDirDurable(
    dir,
    [
      [HF_TRAINABLE_FILE, encodeSafetensors(weights)],
      [HF_OPTIMIZER_FILE, encodeSafetensors(moments)],
      [HF_POLICY_STATE_FILE, `${JSON.stringify(manifest, null, 2)}\n`],
    ],
    'HfPolicy state',
  );
}

/**
 * Reads the state in `dir` into `target` (its weights and optimizer), after checking that it was
 * made for the same identity and holds every weight in its shape; returns the saved version. A
 * state that a killed replace left moved aside is put back first.
 */
export async function readHfPolicyState(dir: string, target: HfPolicyStateContents): Promise<number> {
  await restoreReplacedDir(dir);
  const manifestFile = join(dir, HF_POLICY_STATE_FILE);
  const manifest = await readManifest(manifestFile);
  checkIdentity(manifestFile, manifest, target);
  const weightsFile = join(dir, HF_TRAINABLE_FILE);
  const weights = await readTensors(weightsFile, target.weights);
  const optimizerFile = join(dir, HF_OPTIMIZER_FILE);
  const momentNames = (await readSafetensorsHeader(optimizerFile)).tensors.keys();
  const trained = new Set<string>();
  for (const name of momentNames) {
    const weight = name.replace(/^adam\.[mv]\//, '');
    if (name === weight || !target.weights.has(weight)) {
      throw new CheckpointError(
        `${optimizerFile}: tensor "${printable(name, 120)}" is not a moment of a trained weight (adam.m/<name> or adam.v/<name>)`,
      );
    }
    trained.add(weight);
  }
  const momentTargets = new Map(
    [...trained].flatMap((name) => {
      const variable = target.weights.get(name)!;
      return [
        [`adam.m/${name}`, variable],
        [`adam.v/${name}`, variable],
      ] as const;
    }),
  );
  const moments = await readTensors(optimizerFile, momentTargets);
  for (const [name, variable] of target.weights) {
    tf.tidy(() => variable.assign(tf.tensor(weights.get(name)!, variable.shape)));
  }
  const { optimizer } = target;
  optimizer.dispose();
  optimizer.step = manifest.optimizerStep;
  for (const name of trained) {
    const shape = target.weights.get(name)!.shape;
    optimizer.moments.set(
      name,
      tf.tidy(() => ({
        m: tf.variable(tf.tensor(moments.get(`adam.m/${name}`)!, shape), false),
        v: tf.variable(tf.tensor(moments.get(`adam.v/${name}`)!, shape), false),
      })),
    );
  }
  return manifest.version;
}

/** Reads and checks the `hf-policy.json` file `file`. */
export async function readManifest(file: string): Promise<Manifest> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new CheckpointError(
      `${file}: cannot read it as JSON (${(error as Error).message}); give a directory written by HfPolicy.saveState`,
      { cause: error },
    );
  }
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) {
    throw new CheckpointError(
      `${file}: not an HfPolicy state (format ${HF_POLICY_STATE_FORMAT} version ${HF_POLICY_STATE_FORMAT_VERSION}):\n  ${describeIssues(parsed.error.issues).join('\n  ')}`,
    );
  }
  return parsed.data;
}

/** Refuses a state whose base model or LoRA options differ from the policy's, naming the field. */
function checkIdentity(file: string, manifest: Manifest, target: HfPolicyIdentity): void {
  const refuse = (field: string, saved: unknown, current: unknown, hint: string) =>
    new CheckpointError(
      `${file}: ${field} is ${JSON.stringify(saved)} but this policy's is ${JSON.stringify(current)}; ${hint}`,
    );
  const baseHint = 'the state trains another base model: load the policy from that model directory';
  const config: Record<string, unknown> = { ...target.baseConfig };
  for (const key of new Set([...Object.keys(config), ...Object.keys(manifest.base.config)])) {
    if (JSON.stringify(manifest.base.config[key]) !== JSON.stringify(config[key])) {
      throw refuse(`base.config.${key}`, manifest.base.config[key], config[key], baseHint);
    }
  }
  // Two models of one config differ in their weights, which are not hashed: the directory tells them apart.
  if (manifest.base.dir !== target.baseDir) {
    throw refuse('base.dir', manifest.base.dir, target.baseDir, baseHint);
  }
  const loraHint = 'create the policy with the LoRA options the state was trained with';
  if ((manifest.lora === null) !== (target.lora === null)) {
    throw refuse('lora', manifest.lora, target.lora, loraHint);
  }
  if (manifest.lora === null || target.lora === null) return;
  // The seed only drew A's first values, which the state replaces: it may differ.
  const { rank, alpha, targetModules, dropout } = target.lora;
  const current: Record<string, unknown> = { rank, alpha, targetModules: [...targetModules].sort(), dropout };
  for (const [key, value] of Object.entries(current)) {
    const saved = manifest.lora[key];
    const comparable = key === 'targetModules' && Array.isArray(saved) ? [...saved].sort() : saved;
    if (JSON.stringify(comparable) !== JSON.stringify(value)) {
      throw refuse(`lora.${key}`, saved, value, loraHint);
    }
  }
}

/**
 * Reads the tensors `file` holds for `targets` (name → the variable whose shape each must have),
 * refusing a missing, misshaped or extra tensor, naming the file and the tensor.
 */
async function readTensors(
  file: string,
  targets: ReadonlyMap<string, tf.Variable>,
): Promise<Map<string, Float32Array>> {
  const header = await readSafetensorsHeader(file);
  for (const name of header.tensors.keys()) {
    if (!targets.has(name)) {
      throw new CheckpointError(
        `${file}: tensor "${printable(name, 120)}" is not a trained weight of this policy`,
      );
    }
  }
  for (const [name, variable] of targets) {
    const entry = header.tensors.get(name);
    if (entry === undefined) throw new CheckpointError(`${file}: has no tensor "${name}"`);
    if (!tf.util.arraysEqual([...entry.shape], variable.shape)) {
      throw new CheckpointError(
        `${file}: tensor "${name}" has shape [${entry.shape.join(', ')}] but this policy's is [${variable.shape.join(', ')}]`,
      );
    }
  }
  return readSafetensors(header, targets.keys());
}
