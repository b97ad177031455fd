// Writes a checkpoint of ours as a Hugging Face model directory that transformers and vLLM load:
// model.safetensors and config.json of the equal GPT2LMHeadModel (gpt2-weights.ts), its
// generation_config.json, and tokenizer.json with tokenizer_config.json (hf-tokenizer.ts). An
// HfPolicy state (a fine-tune of a Hugging Face model) goes to hf-policy-export.ts instead. Everything
// is built and checked before the first file is written, into an output directory that must be
// new or empty, so a refusal leaves nothing behind.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InvalidArgumentError, parseOrThrow } from '@pilotrl/core';
import { z } from 'zod';
import { readCheckpoint } from '../checkpoint';
import { HF_POLICY_STATE_FILE } from '../hf/hf-policy-state';
import { Tokenizer } from '../tokenizer';
import { gpt2Config, gpt2GenerationConfig, gpt2Tensors } from './gpt2-weights';
import { exportHfPolicyState } from './hf-policy-export';
import { hfTokenizerConfig, hfTokenizerJson } from './hf-tokenizer';
import { checkOutDir } from './out-dir';
import { encodeSafetensors } from './safetensors-writer';

export const hfExportOptionsSchema = z
  .object({
    /**
     * How an HfPolicy state with LoRA is written: `merge` (the default), a whole model with the
     * adapters merged into its weights; `adapter`, a PEFT adapter for its base model.
     */
    lora: z.enum(['merge', 'adapter']).default('merge'),
  })
  .strict();
export type HfExportOptions = z.input<typeof hfExportOptionsSchema>;

export interface HfExport {
  /** The files written, in `outDir`. */
  readonly files: readonly string[];
  /** Weights written (the tied output projection once; a value head is not part of a causal LM). */
  readonly parameters: number;
  /** The checkpoint's policy version. */
  readonly version: number;
  /** What was written: the transformers class of the model (`GPT2LMHeadModel`, `Qwen3ForCausalLM`, …) or `PEFT LoRA adapter`. */
  readonly architecture: string;
}

/**
 * Exports the checkpoint in `checkpointDir` to `outDir`, a new or empty directory: a TfjsPolicy's
 * `saveState` as a GPT2LMHeadModel, an HfPolicy's as its base model's architecture with the trained
 * weights (or, with `lora: 'adapter'`, as a PEFT adapter).
 */
export async function exportHf(
  checkpointDir: string,
  outDir: string,
  options: HfExportOptions = {},
): Promise<HfExport> {
  const { lora } = parseOrThrow(hfExportOptionsSchema, options, 'export options');
  if (existsSync(join(checkpointDir, HF_POLICY_STATE_FILE))) {
    return exportHfPolicyState(checkpointDir, outDir, lora);
  }
  if (lora === 'adapter') {
    throw new InvalidArgumentError(
      `${checkpointDir} holds no HfPolicy state (${HF_POLICY_STATE_FILE}), so no LoRA adapter to export; export our own transformer's checkpoints as whole models`,
    );
  }
  await checkOutDir(outDir);
  const { manifest, data } = await readCheckpoint(checkpointDir);
  const table = new Map(manifest.tensors.map((entry) => [entry.name, entry]));
  const tensors = gpt2Tensors(manifest.model, (name) => {
    const entry = table.get(name);
    if (entry === undefined) return undefined;
    const size = entry.shape.reduce((a, b) => a * b, 1);
    return { shape: entry.shape, data: data.subarray(entry.offset, entry.offset + size) };
  });
  const tokenizer = Tokenizer.fromJSON(manifest.tokenizer);
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  const files: [string, string | Uint8Array][] = [
    ['config.json', json(gpt2Config(manifest.model))],
    ['generation_config.json', json(gpt2GenerationConfig())],
    ['model.safetensors', encodeSafetensors(tensors, { format: 'pt' })],
    ['tokenizer.json', json(hfTokenizerJson(tokenizer))],
    ['tokenizer_config.json', json(hfTokenizerConfig(manifest.model.contextLength))],
  ];
  await mkdir(outDir, { recursive: true });
  for (const [name, contents] of files) await writeFile(join(outDir, name), contents);
  return {
    files: files.map(([name]) => name),
    parameters: tensors.reduce((n, t) => n + t.data.length, 0),
    version: manifest.version,
    architecture: 'GPT2LMHeadModel',
  };
}
