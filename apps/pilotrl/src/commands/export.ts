// `pilotrl export`: a checkpoint written in a standard format other tools load. `--format hf` writes
// a Hugging Face model directory (GPT2LMHeadModel weights and config, tokenizer.json and the chat
// template) that transformers and vLLM load, made by @pilotrl/policy-tfjs's `exportHf`.
import { exportHf } from '@pilotrl/policy-tfjs';
import { policyDir } from './eval';
import type { CliIo } from './io';

/** The formats `export` writes. */
export const EXPORT_FORMATS = ['hf'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportOptions {
  /** A run directory (its latest checkpoint), a checkpoint directory or a policy directory. */
  source: string;
  /** A new or empty directory. */
  outDir: string;
  format: ExportFormat;
}

/** Exports `source`'s policy to `outDir`; prints one line saying what was written. */
export async function exportCommand(options: ExportOptions, io: CliIo): Promise<void> {
  const checkpoint = policyDir(options.source);
  const written = await exportHf(checkpoint, options.outDir);
  io.stdout.write(
    `${options.outDir}: Hugging Face GPT2LMHeadModel (${written.parameters} weights, policy version ${written.version}) and tokenizer from ${checkpoint}\n`,
  );
}
