// Batched autoregressive sampling: prompts are left-padded into one batch, prefilled in one
// forward pass, then decoded one token per step with a KV cache (or, for comparison, by
// recomputing the whole context each step). Sampling runs in JS on the last-position logits.
import type { Rng } from '@pilotrl/core';
import * as tf from '@tensorflow/tfjs-core';
import { inScope, type LayerCache, MASKED, type TransformerModel } from './model';
import { END_ID, PAD_ID, type Tokenizer } from './tokenizer';

export interface SamplingSettings {
  maxTokens: number;
  /** 0 = greedy. */
  temperature: number;
  topP: number;
  stop: readonly string[];
  rng: Rng;
}

export interface GeneratedSequence {
  /** Sampled ids, including the final `<|end|>` when the model ended the reply. */
  tokenIds: number[];
  /** Logprob of each sampled id under the sampling distribution (temperature and top-p applied;
   * with temperature 0, under the model's own distribution). */
  logprobs: number[];
  finishReason: 'stop' | 'length';
  /** Text of the reply, cut right after the first stop string when one occurred. */
  text: string;
}

export interface GenerateOptions {
  /** Decode with the KV cache (default) or recompute the full context every step. */
  useCache?: boolean;
}

/** Samples one continuation per prompt. Prompts must leave room for at least one token. */
export function generateBatch(
  model: TransformerModel,
  tokenizer: Tokenizer,
  prompts: readonly (readonly number[])[],
  settings: readonly SamplingSettings[],
  options: GenerateOptions = {},
): GeneratedSequence[] {
  const useCache = options.useCache !== false;
  const { contextLength, vocabSize } = model.config;
  const batch = prompts.length;
  const width = Math.max(...prompts.map((p) => p.length));
  const pads = prompts.map((p) => width - p.length);
  const keyBias: number[][] = pads.map((pad) =>
    Array.from({ length: width }, (_, i) => (i < pad ? MASKED : 0)),
  );
  const sequences = prompts.map((p, b) => [...new Array<number>(pads[b]!).fill(PAD_ID), ...p]);
  const results: GeneratedSequence[] = prompts.map(() => ({
    tokenIds: [],
    logprobs: [],
    finishReason: 'length',
    text: '',
  }));
  const done = prompts.map((p, b) => settings[b]!.maxTokens <= 0 || p.length >= contextLength);
  let cache: LayerCache[] = [];

  const positionOf = (b: number, column: number) =>
    Math.min(Math.max(0, column - pads[b]!), contextLength - 1);
  const fullPass = (): Float32Array => {
    const time = sequences[0]!.length;
    return inScope(() => {
      const ids = tf.tensor2d(sequences.flat(), [batch, time], 'int32');
      const positions = tf.tensor2d(
        sequences.flatMap((_, b) => Array.from({ length: time }, (_, i) => positionOf(b, i))),
        [batch, time],
        'int32',
      );
      const bias = tf.tensor4d(attentionBias(keyBias, time), [batch, 1, time, time]);
      const { hidden, cache: fresh } = model.run(ids, positions, bias, undefined, useCache);
      const last = tf.gather(
        hidden,
        tf.tensor1d(
          sequences.map((_, b) => b * time + time - 1),
          'int32',
        ),
      );
      if (useCache) {
        for (const layer of cache) tf.dispose([layer.k, layer.v]);
        cache = fresh.map((layer) => ({ k: tf.keep(layer.k), v: tf.keep(layer.v) }));
      }
      return model.logits(last as tf.Tensor2D).dataSync() as Float32Array;
    });
  };
  const cachedStep = (tokens: number[]): Float32Array => {
    const column = sequences[0]!.length - 1;
    return inScope(() => {
      const ids = tf.tensor2d(tokens, [batch, 1], 'int32');
      const positions = tf.tensor2d(
        tokens.map((_, b) => positionOf(b, column)),
        [batch, 1],
        'int32',
      );
      const bias = tf.tensor4d(keyBias.flat(), [batch, 1, 1, column + 1]);
      const { hidden, cache: fresh } = model.run(ids, positions, bias, cache, true);
      for (const layer of cache) tf.dispose([layer.k, layer.v]);
      cache = fresh.map((layer) => ({ k: tf.keep(layer.k), v: tf.keep(layer.v) }));
      return model.logits(hidden).dataSync() as Float32Array;
    });
  };

  try {
    let logits = done.every(Boolean) ? new Float32Array(0) : fullPass();
    while (!done.every(Boolean)) {
      const next: number[] = [];
      for (let b = 0; b < batch; b++) {
        if (done[b]) {
          next.push(PAD_ID);
          continue;
        }
        const row = logits.subarray(b * vocabSize, (b + 1) * vocabSize);
        const { token, logprob } = sampleToken(row, settings[b]!);
        const result = results[b]!;
        result.tokenIds.push(token);
        result.logprobs.push(logprob);
        next.push(token);
        if (token === END_ID) {
          result.finishReason = 'stop';
          done[b] = true;
        } else if (matchStop(tokenizer, result, settings[b]!.stop)) {
          result.finishReason = 'stop';
          done[b] = true;
        } else if (
          result.tokenIds.length >= settings[b]!.maxTokens ||
          prompts[b]!.length + result.tokenIds.length >= contextLength
        ) {
          done[b] = true;
        }
      }
      if (done.every(Boolean)) break;
      for (let b = 0; b < batch; b++) {
        sequences[b]!.push(next[b]!);
        keyBias[b]!.push(0);
      }
      logits = useCache ? cachedStep(next) : fullPass();
    }
  } finally {
    for (const layer of cache) tf.dispose([layer.k, layer.v]);
  }
  for (const result of results) {
    if (result.text === '') result.text = tokenizer.decode(result.tokenIds.filter((id) => id !== END_ID));
  }
  return results;
}

/** [batch · time · time] additive bias: causal, and padding keys hidden. */
function attentionBias(keyBias: readonly (readonly number[])[], time: number): Float32Array {
  const out = new Float32Array(keyBias.length * time * time);
  keyBias.forEach((keys, b) => {
    for (let i = 0; i < time; i++) {
      const base = (b * time + i) * time;
      for (let j = 0; j < time; j++) out[base + j] = j > i ? MASKED : keys[j]!;
    }
  });
  return out;
}

/** Sets `result.text` and returns true when the decoded reply contains a stop string. */
function matchStop(tokenizer: Tokenizer, result: GeneratedSequence, stops: readonly string[]): boolean {
  if (stops.length === 0) return false;
  const text = tokenizer.decode(result.tokenIds);
  let cut = -1;
  for (const stop of stops) {
    const at = text.indexOf(stop);
    if (at >= 0 && (cut < 0 || at + stop.length < cut)) cut = at + stop.length;
  }
  if (cut < 0) return false;
  result.text = text.slice(0, cut);
  return true;
}

/** Draws a token from one row of logits; returns it with its logprob under the sampling distribution. */
export function sampleToken(
  logits: Float32Array,
  settings: Pick<SamplingSettings, 'temperature' | 'topP' | 'rng'>,
) {
  const greedy = settings.temperature === 0;
  const scale = greedy ? 1 : 1 / settings.temperature;
  let max = Number.NEGATIVE_INFINITY;
  let argmax = 0;
  for (let i = 0; i < logits.length; i++) {
    if (logits[i]! > max) {
      max = logits[i]!;
      argmax = i;
    }
  }
  const probs = new Float64Array(logits.length);
  let total = 0;
  for (let i = 0; i < logits.length; i++) {
    probs[i] = Math.exp((logits[i]! - max) * scale);
    total += probs[i]!;
  }
  if (greedy) return { token: argmax, logprob: Math.log(probs[argmax]! / total) };
  let kept = total;
  let order: number[] | undefined;
  if (settings.topP < 1) {
    // Keep the most likely tokens until their mass reaches topP, then renormalise.
    order = [...probs.keys()].sort((p, q) => probs[q]! - probs[p]! || p - q);
    let mass = 0;
    let count = 0;
    while (count < order.length && mass < settings.topP * total) mass += probs[order[count++]!]!;
    order = order.slice(0, count);
    kept = mass;
  }
  let target = settings.rng.float() * kept;
  const candidates = order ?? [...probs.keys()];
  let token = candidates[candidates.length - 1]!;
  for (const id of candidates) {
    target -= probs[id]!;
    if (target < 0) {
      token = id;
      break;
    }
  }
  return { token, logprob: Math.log(probs[token]! / kept) };
}
