// Free sampling of the Hugging Face decoder, one prompt at a time with the KV cache: the prompt in
// one pass, then one token per step drawn by the package's `sampleToken` (temperature, top-p; 0 is
// greedy), until a stop id (the end of the turn, eos), a stop string, `maxTokens` or the end of the
// model's positions.
import * as tf from '@tensorflow/tfjs-core';
import { type GeneratedSequence, type SamplingSettings, sampleToken } from '../generate';
import { inScope } from '../model';
import type { BpeTokenizer } from './bpe-tokenizer';
import type { HfDecoderModel, HfLayerCache } from './llama';

/**
 * Samples one continuation of `prompt`. The sampled stop id, when there is one, ends `tokenIds`
 * and is left out of `text`; a stop string is kept in `text`, which ends right after it.
 */
export async function sampleHfSequence(
  model: HfDecoderModel,
  tokenizer: BpeTokenizer,
  prompt: readonly number[],
  settings: SamplingSettings,
  stopIds: readonly number[],
  signal?: AbortSignal,
): Promise<GeneratedSequence> {
  const result: GeneratedSequence = { tokenIds: [], logprobs: [], finishReason: 'length', text: '' };
  const { maxPositions, hiddenSize } = model.config;
  let cache: HfLayerCache[] = [];
  let input = [...prompt];
  let position = 0;
  try {
    while (result.tokenIds.length < settings.maxTokens && position + input.length <= maxPositions) {
      signal?.throwIfAborted();
      const start = position;
      const step = inScope(() => {
        const ids = tf.tensor2d([input], [1, input.length], 'int32');
        const positions = tf.range(start, start + input.length, 1, 'int32').expandDims(0) as tf.Tensor2D;
        const run = model.run(ids, positions, null, cache, true);
        const last = tf.slice(run.hidden, [input.length - 1, 0], [1, hiddenSize]);
        for (const layer of run.cache) {
          tf.keep(layer.k);
          tf.keep(layer.v);
        }
        return { logits: tf.keep(model.logits(last)), cache: run.cache };
      });
      for (const layer of cache) tf.dispose([layer.k, layer.v]);
      cache = step.cache;
      const logits = (await step.logits.data()) as Float32Array;
      step.logits.dispose();
      position += input.length;
      const { token, logprob } = sampleToken(logits, settings);
      result.tokenIds.push(token);
      result.logprobs.push(logprob);
      if (stopIds.includes(token)) {
        result.finishReason = 'stop';
        break;
      }
      const cut = stopStringEnd(decodeKnown(tokenizer, result.tokenIds), settings.stop);
      if (cut !== undefined) {
        result.finishReason = 'stop';
        result.text = cut;
        break;
      }
      input = [token];
    }
  } finally {
    for (const layer of cache) tf.dispose([layer.k, layer.v]);
  }
  if (result.text === '') {
    const ended = stopIds.includes(result.tokenIds.at(-1) ?? -1);
    result.text = decodeKnown(tokenizer, ended ? result.tokenIds.slice(0, -1) : result.tokenIds);
  }
  return result;
}

/** The text of `ids`, skipping ids past the tokenizer's (a model's vocabulary may be padded beyond it). */
export function decodeKnown(tokenizer: BpeTokenizer, ids: readonly number[]): string {
  return tokenizer.decode(ids.filter((id) => id < tokenizer.vocabSize));
}

/** `text` cut right after the earliest-ending stop string, or undefined when none occurs. */
function stopStringEnd(text: string, stops: readonly string[]): string | undefined {
  let cut = -1;
  for (const stop of stops) {
    const at = text.indexOf(stop);
    if (at >= 0 && (cut < 0 || at + stop.length < cut)) cut = at + stop.length;
  }
  return cut < 0 ? undefined : text.slice(0, cut);
}
