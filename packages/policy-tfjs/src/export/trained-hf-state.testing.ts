// An HfPolicy state trained a few cross-entropy steps on a model directory (so LoRA's B is no
// longer zero), and the decoder that state describes (the base model with the state's trained
// weights in place), for the tests of the export of HfPolicy states.
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { HfPolicy } from '../hf/hf-policy';
import { HF_TRAINABLE_FILE } from '../hf/hf-policy-state';
import type { HfDecoderModel } from '../hf/llama';
import type { LoraOptions } from '../hf/lora';
import { type HfPretrained, openHfPretrained } from '../hf/pretrained';
import { readSafetensors, readSafetensorsHeader } from '../hf/safetensors';

/** Trains an HfPolicy on `modelDir` (with `lora` when given) for `steps` steps and saves it to `stateDir`. */
export async function trainHfState(
  modelDir: string,
  stateDir: string,
  lora: LoraOptions | undefined,
  steps = 2,
): Promise<void> {
  const policy = await HfPolicy.load(modelDir, lora === undefined ? {} : { lora });
  try {
    const tokenIds = Array.from({ length: 12 }, (_, i) => (i * 37 + 5) % policy.config.vocabSize);
    const datum = { tokenIds, weights: tokenIds.map((_, t) => (t < 3 ? 0 : 1)) };
    for (let step = 0; step < steps; step++) {
      await policy.forwardBackward([datum], 'cross_entropy');
      await policy.optimStep({ learningRate: 0.05 });
    }
    await policy.saveState(stateDir);
  } finally {
    policy.dispose();
  }
}

/** The model of `modelDir` with LoRA adapters (`lora`) or not, its trained weights read from `stateDir`. */
export async function openTrainedModel(
  modelDir: string,
  stateDir: string,
  lora: LoraOptions | undefined,
): Promise<HfPretrained & { model: HfDecoderModel }> {
  const opened = await openHfPretrained(modelDir);
  if (lora !== undefined) opened.model.addLora(lora);
  const header = await readSafetensorsHeader(join(stateDir, HF_TRAINABLE_FILE));
  const values = await readSafetensors(header, header.tensors.keys());
  for (const [name, variable] of opened.model.trainableWeights) {
    tf.tidy(() => variable.assign(tf.tensor(values.get(name)!, variable.shape)));
  }
  return opened;
}
