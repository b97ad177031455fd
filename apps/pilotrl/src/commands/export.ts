// `pilotrl export`: a checkpoint written in a standard format other tools load. `--format hf` writes
// a Hugging Face model directory that transformers and vLLM load, made by @pilotrl/policy-tfjs's
// `exportHf`: our own transformer's checkpoints as GPT2LMHeadModel, a `policy.kind: hf` run's as its
// base model's architecture with the trained weights, or (`--lora adapter`) its LoRA adapters alone
// as a PEFT adapter of the base model.
import { exportHf } from '@pilotrl/policy-tfjs';
import { policyDir } from './eval';
import type { CliIo } from './io';

/** The formats `export` writes. */
export const EXPORT_FORMATS = ['hf'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** How a LoRA run is written: merged into a whole model, or as a PEFT adapter. */
export const LORA_EXPORTS = ['merge', 'adapter'] as const;
export type LoraExport = (typeof LORA_EXPORTS)[number];

export interface ExportOptions {
  /** A run directory (its latest checkpoint), a checkpoint directory or a policy directory. */
  source: string;
  /** A new or empty directory. */
  outDir: string;
  format: ExportFormat;
  /** A LoRA run's adapters merged into the model (default) or as a PEFT adapter; `adapter` is refused for any other run. */
  lora?: LoraExport;
}

/** Exports `source`'s policy to `outDir`; prints one line saying what was written. */
export async function exportCommand(options: ExportOptions, io: CliIo): Promise<void> {
  const checkpoint = policyDir(options.source);
  const written = await exportHf(checkpoint, options.outDir, { lora: options.lora ?? 'merge' });
  io.stdout.write(
    `${options.outDir}: Hugging Face ${written.architecture} (${written.parameters} weights, policy version ${written.version}) and tokenizer from ${checkpoint}\n`,
  );
}
