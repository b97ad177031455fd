// Writes a checkpoint of ours as a Hugging Face model directory that transformers and vLLM load:
// model.safetensors and config.json of the equal GPT2LMHeadModel (gpt2-weights.ts), its
// generation_config.json, and tokenizer.json with tokenizer_config.json (hf-tokenizer.ts). Everything
// is built and checked before the first file is written, into an output directory that must be
// new or empty, so a refusal leaves nothing behind.
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InvalidArgumentError } from '@pilotrl/core';
import { readCheckpoint } from '../checkpoint';
import { Tokenizer } from '../tokenizer';
import { gpt2Config, gpt2GenerationConfig, gpt2Tensors } from './gpt2-weights';
import { hfTokenizerConfig, hfTokenizerJson } from './hf-tokenizer';
import { encodeSafetensors } from './safetensors-writer';

export interface HfExport {
  /** The files written, in `outDir`. */
  readonly files: readonly string[];
  /** Weights written (the tied output projection once; a value head is not part of a causal LM). */
  readonly parameters: number;
  /** The checkpoint's policy version. */
  readonly version: number;
}

/** Whether `dir` is missing or an empty directory; refuses anything else. */
async function checkOutDir(dir: string): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    throw new InvalidArgumentError(
      `output ${dir} cannot be used (${code ?? (error as Error).message}); give a new or empty directory`,
    );
  }
  if (entries.length > 0) {
    throw new InvalidArgumentError(
      `output ${dir} is not empty (it holds ${entries.slice(0, 3).join(', ')}${entries.length > 3 ? ', …' : ''}); give a new or empty directory`,
    );
  }
}

/** Exports the checkpoint in `checkpointDir` (a TfjsPolicy's `saveState`) to `outDir`. */
export async function exportHf(checkpointDir: string, outDir: string): Promise<HfExport> {
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
  };
}
