// Checkpoint directories: `checkpoint.json` (format version, model config, tokenizer, policy
// version, tensor table, SHA-256 of the weights, then the SHA-256 of everything before it) and `weights.bin` (float32 little-endian: model
// weights, then AdamW moments). A directory is written under a temporary name and renamed into
// place, so readers see the old checkpoint or the new one, never a half-written one; its files and
// the directories around the rename are flushed to the disk, so a power loss cannot leave it empty.
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { CheckpointError, describeIssues } from '@pilotrl/core';
import * as tf from '@tensorflow/tfjs-core';
import { z } from 'zod';
import type { AdamW } from './adamw';
import { restoreReplacedDir, writeDirDurable } from './durable-fs';
import { type ModelConfig, modelConfigSchema, parameterCount } from './model';
import { type SerializedTokenizer, serializedTokenizerSchema } from './tokenizer';

export const CHECKPOINT_FORMAT = 'pilotrl-policy-tfjs';
export const CHECKPOINT_FORMAT_VERSION = 1;
const MANIFEST = 'checkpoint.json';
const WEIGHTS = 'weights.bin';
/** The largest checkpoint.json read (its tokenizer's merges make most of it: about 1 MB at 65,536 tokens). */
export const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;

const manifestSchema = z.object({
  format: z.literal(CHECKPOINT_FORMAT),
  formatVersion: z.number().int(),
  model: modelConfigSchema,
  tokenizer: serializedTokenizerSchema,
  version: z.number().int().nonnegative(),
  optimizerStep: z.number().int().nonnegative(),
  tensors: z.array(
    z.object({
      name: z.string(),
      shape: z.array(z.number().int().nonnegative()),
      /** Offset in float32 elements. */
      offset: z.number().int().nonnegative(),
    }),
  ),
  weightsSha256: z.string().length(64),
  /**
   * SHA-256 of this manifest as written without this field. Checkpoints written before it existed
   * lack it and are read unchecked.
   */
  manifestSha256: z.string().length(64).optional(),
});

/** The SHA-256 of a manifest's JSON without its own checksum, as the writer serialised it. */
function manifestDigest(manifest: Record<string, unknown>): string {
  const { manifestSha256: _own, ...rest } = manifest;
  return createHash('sha256').update(JSON.stringify(rest)).digest('hex');
}
export type CheckpointManifest = z.infer<typeof manifestSchema>;

export interface CheckpointContents {
  model: ModelConfig;
  tokenizer: SerializedTokenizer;
  version: number;
  weights: ReadonlyMap<string, tf.Variable>;
  optimizer: AdamW;
}

export interface ReadCheckpoint {
  manifest: CheckpointManifest;
  data: Float32Array;
}

export async function writeCheckpoint(dir: string, contents: CheckpointContents): Promise<void> {
  const entries: [string, tf.Tensor][] = [...contents.weights];
  for (const [name, { m, v }] of contents.optimizer.moments)
    entries.push([`adam.m/${name}`, m], [`adam.v/${name}`, v]);
  const total = entries.reduce((n, [, t]) => n + t.size, 0);
  const data = new Float32Array(total);
  const tensors: CheckpointManifest['tensors'] = [];
  let offset = 0;
  for (const [name, tensor] of entries) {
    data.set(tensor.dataSync() as Float32Array, offset);
    tensors.push({ name, shape: tensor.shape, offset });
    offset += tensor.size;
  }
  const bytes = new Uint8Array(data.buffer);
  const manifest: CheckpointManifest = {
    format: CHECKPOINT_FORMAT,
    formatVersion: CHECKPOINT_FORMAT_VERSION,
    model: contents.model,
    tokenizer: contents.tokenizer,
    version: contents.version,
    optimizerStep: contents.optimizer.step,
    tensors,
    weightsSha256: createHash('sha256').update(bytes).digest('hex'),
  };
  manifest.manifestSha256 = manifestDigest(manifest);
  await writeDirDurable(
    dir,
    [
      [WEIGHTS, bytes],
      [MANIFEST, JSON.stringify(manifest)],
    ],
    'checkpoint',
  );
}

/**
 * Reads and checks a checkpoint: checkpoint.json at most `MAX_MANIFEST_BYTES`, its own checksum,
 * its schema, and a weights.bin of exactly the size its tensor table gives, which holds at least
 * the model's weights, before the weights are read and their checksum compared; so a damaged
 * manifest cannot make a loader build a model larger than the weights on the disk. A checkpoint
 * that a killed replace left moved aside is put back first.
 */
export async function readCheckpoint(dir: string): Promise<ReadCheckpoint> {
  await restoreReplacedDir(dir);
  const unreadable = (error: unknown) =>
    new CheckpointError(`no checkpoint at ${dir}: ${MANIFEST} cannot be read (${(error as Error).message})`, {
      cause: error,
    });
  let manifestBytes: number;
  try {
    manifestBytes = (await stat(join(dir, MANIFEST))).size;
  } catch (error) {
    throw unreadable(error);
  }
  if (manifestBytes > MAX_MANIFEST_BYTES) {
    throw new CheckpointError(
      `checkpoint ${dir} is damaged: ${MANIFEST} is ${manifestBytes} bytes, more than any checkpoint writes (${MAX_MANIFEST_BYTES}, MAX_MANIFEST_BYTES)`,
    );
  }
  let text: string;
  try {
    text = await readFile(join(dir, MANIFEST), 'utf8');
  } catch (error) {
    throw unreadable(error);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new CheckpointError(`checkpoint ${dir} is damaged: ${MANIFEST} is not valid JSON`, {
      cause: error,
    });
  }
  const header = z.object({ format: z.string(), formatVersion: z.number() }).safeParse(raw);
  if (!header.success || header.data.format !== CHECKPOINT_FORMAT) {
    throw new CheckpointError(
      `${dir} is not a ${CHECKPOINT_FORMAT} checkpoint (${MANIFEST} has no matching "format")`,
    );
  }
  if (header.data.formatVersion !== CHECKPOINT_FORMAT_VERSION) {
    throw new CheckpointError(
      `checkpoint ${dir} has format version ${header.data.formatVersion}; this version of @pilotrl/policy-tfjs reads version ${CHECKPOINT_FORMAT_VERSION}`,
    );
  }
  const recorded = (raw as { manifestSha256?: unknown }).manifestSha256;
  if (recorded !== undefined && recorded !== manifestDigest(raw as Record<string, unknown>)) {
    throw new CheckpointError(
      `checkpoint ${dir} is damaged: ${MANIFEST} was changed after it was written (its SHA-256 does not match)`,
    );
  }
  const parsed = manifestSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = describeIssues(parsed.error.issues).join('; ');
    throw new CheckpointError(`checkpoint ${dir} is damaged: ${MANIFEST} is invalid (${problems})`);
  }
  const { model, tensors } = parsed.data;
  const floats = tensors.reduce(
    (end, entry) => Math.max(end, entry.offset + entry.shape.reduce((a, b) => a * b, 1)),
    0,
  );
  const parameters = parameterCount(model);
  if (parameters > floats) {
    throw new CheckpointError(
      `checkpoint ${dir} is damaged: its model has ${parameters} weights, but the tensor table of ${MANIFEST} holds ${floats} floats`,
    );
  }
  const damagedWeights = (error: unknown) =>
    new CheckpointError(`checkpoint ${dir} is damaged: ${WEIGHTS} cannot be read`, { cause: error });
  let weightsBytes: number;
  try {
    weightsBytes = (await stat(join(dir, WEIGHTS))).size;
  } catch (error) {
    throw damagedWeights(error);
  }
  if (weightsBytes !== 4 * floats) {
    throw new CheckpointError(
      `checkpoint ${dir} is damaged: ${WEIGHTS} is ${weightsBytes} bytes, but the tensor table of ${MANIFEST} needs ${4 * floats}`,
    );
  }
  let bytes: Buffer;
  try {
    bytes = await readFile(join(dir, WEIGHTS));
  } catch (error) {
    throw damagedWeights(error);
  }
  const digest = createHash('sha256').update(bytes).digest('hex');
  if (digest !== parsed.data.weightsSha256) {
    throw new CheckpointError(
      `checkpoint ${dir} is damaged: ${WEIGHTS} (${bytes.length} bytes) does not match the SHA-256 in ${MANIFEST}`,
    );
  }
  const data = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  return { manifest: parsed.data, data };
}

/** Assigns a checkpoint's tensors to a model of the same configuration; returns its policy version. */
export function loadCheckpoint(
  checkpoint: ReadCheckpoint,
  dir: string,
  target: Omit<CheckpointContents, 'version'>,
): number {
  const { manifest, data } = checkpoint;
  const want = JSON.stringify(target.model);
  const have = JSON.stringify(manifest.model);
  if (want !== have) {
    throw new CheckpointError(
      `checkpoint ${dir} holds a model with config ${have}, but this policy has ${want}; load it with TfjsPolicy.load(dir) instead`,
    );
  }
  if (JSON.stringify(manifest.tokenizer) !== JSON.stringify(target.tokenizer)) {
    throw new CheckpointError(
      `checkpoint ${dir} was trained with a different tokenizer than this policy's; load it with TfjsPolicy.load(dir) instead`,
    );
  }
  const table = new Map(manifest.tensors.map((entry) => [entry.name, entry]));
  const slice = (name: string, shape: readonly number[]) => {
    const entry = table.get(name);
    const size = shape.reduce((a, b) => a * b, 1);
    if (
      entry === undefined ||
      !tf.util.arraysEqual(entry.shape, [...shape]) ||
      entry.offset + size > data.length
    ) {
      throw new CheckpointError(
        `checkpoint ${dir} is damaged: tensor ${name} is missing, misshaped or out of range`,
      );
    }
    return tf.tensor(data.subarray(entry.offset, entry.offset + size), [...shape]);
  };
  const assign = (variable: tf.Variable, name: string) => {
    const tensor = slice(name, variable.shape);
    variable.assign(tensor);
    tensor.dispose();
  };
  for (const [name, variable] of target.weights) assign(variable, name);
  target.optimizer.dispose();
  target.optimizer.step = manifest.optimizerStep;
  for (const [name, variable] of target.weights) {
    if (!table.has(`adam.m/${name}`)) continue;
    const moments = tf.tidy(() => ({
      m: tf.variable(slice(`adam.m/${name}`, variable.shape), false),
      v: tf.variable(slice(`adam.v/${name}`, variable.shape), false),
    }));
    target.optimizer.moments.set(name, moments);
  }
  return manifest.version;
}
