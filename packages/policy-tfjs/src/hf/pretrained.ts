// A Hugging Face model directory opened whole: config, tokenizer and chat template are read and
// checked against each other before any weight is read, then the weights (checked in turn), so a
// directory that cannot work fails in a moment, naming the file and the field.
import { join } from 'node:path';
import type { AdamParams } from '@pilotrl/core';
import { CheckpointError } from '@pilotrl/core';
import { BpeTokenizer, TOKENIZER_FILE } from './bpe-tokenizer';
import { type HfChatTemplate, readChatTemplate } from './hf-chat-template';
import type { HfDecoderConfig } from './hf-config';
import { HfDecoderModel } from './llama';
import type { LoraOptions } from './lora';
import { CONFIG_FILE, readHfConfig, readHfWeights } from './model-dir';
import type { SupervisedBatch, SupervisedStepResult } from './supervised-step';

/**
 * A loaded decoder as the package exports it: arrays in and out, never tensors, so our type
 * declarations do not load tfjs-core's (which fail a strict project without skipLibCheck).
 */
export interface HfDecoder {
  readonly config: HfDecoderConfig;
  /** Logits of every position of `ids` (rows of equal length, from position 0), [batch × time × vocab] row-major. */
  logitsOf(ids: readonly (readonly number[])[]): Promise<Float32Array>;
  /** Greedy decoding with the KV cache: up to `maxTokens` new ids, stopping after the first of `stopIds` (default: eos). */
  greedy(prompt: readonly number[], maxTokens: number, stopIds?: readonly number[]): Promise<number[]>;
  /** Adds LoRA adapters (`rank`, `alpha`, `targetModules`, `seed`) and freezes every other weight. */
  addLora(options: LoraOptions): void;
  /** One AdamW step on the mean masked next-token cross-entropy of `batch`; resolves to the loss before it. */
  supervisedStep(batch: SupervisedBatch, adam: AdamParams): Promise<SupervisedStepResult>;
  /** Frees the weights. */
  dispose(): void;
}

export interface HfPretrained {
  readonly config: HfDecoderConfig;
  readonly model: HfDecoder;
  readonly tokenizer: BpeTokenizer;
  readonly chatTemplate: HfChatTemplate;
}

/**
 * Opens the Llama or Qwen3 model in `dir` (config.json, *.safetensors, tokenizer.json, the chat
 * template) on the current tfjs backend (call `initBackend` first). Dispose `model` when done.
 */
export function loadHfPretrained(dir: string): Promise<HfPretrained> {
  return openHfPretrained(dir);
}

/** `loadHfPretrained` with the model as its class, for the package's own users of its tensors. */
export async function openHfPretrained(dir: string): Promise<HfPretrained & { model: HfDecoderModel }> {
  const config = await readHfConfig(dir);
  const tokenizer = await BpeTokenizer.fromDir(dir);
  if (tokenizer.vocabSize > config.vocabSize) {
    throw new CheckpointError(
      `${join(dir, TOKENIZER_FILE)}: has ids up to ${tokenizer.vocabSize - 1} but ${join(dir, CONFIG_FILE)}'s vocab_size is ${config.vocabSize}; the tokenizer is not this model's`,
    );
  }
  const chatTemplate = await readChatTemplate(dir);
  if (tokenizer.tokenId(chatTemplate.endOfTurn) === undefined) {
    throw new CheckpointError(
      `${join(dir, TOKENIZER_FILE)}: has no ${chatTemplate.endOfTurn} token, which the chat template ends turns with`,
    );
  }
  const model = new HfDecoderModel(await readHfWeights(dir));
  return { config, model, tokenizer, chatTemplate };
}
