// Prompt-prefix KV cache: the keys and values of recently scored prompts, so that a prompt sharing
// a long prefix with one scored before (the conversation of a plan written edge by edge, or of an
// action chosen after the plan) runs only its new tokens. Keys and values at a position depend only
// on the tokens up to it, so the first L of a cached prompt's serve any prompt that starts with the
// same L tokens. A scoring pass's keys and values are kept whole, as one group shared by the prompts
// of its batch, so that keeping them and reading them back are a few tensor ops per pass, not per
// prompt. Prompts are evicted least recently used first, and a group is freed with its last prompt,
// to stay within a byte budget.
import * as tf from '@tensorflow/tfjs-core';
import type { LayerCache, ModelConfig } from './model';

/** The keys and values of one scoring pass, per layer [batch, heads, columns, headDim] (kept tensors). */
interface Group {
  layers: LayerCache[];
  bytes: number;
  /** Prompts still cached in it. */
  live: number;
}

/**
 * Where a prompt's keys and values lie in its group: row `row`; its token t in column t for
 * t < `reused`, and in column `freshFrom + t - reused` after (the columns its pass ran).
 */
export interface CachedPrompt {
  row: number;
  reused: number;
  freshFrom: number;
}

interface Entry extends CachedPrompt {
  tokens: readonly number[];
  group: Group;
}

/** A reusable prefix of a prompt: its first `length` tokens, read from a cached prompt's columns. */
export interface PrefixHit extends CachedPrompt {
  length: number;
  group: { readonly layers: readonly LayerCache[] };
}

export class PrefixCache {
  /** Entries, least recently used first. */
  private entries: Entry[] = [];
  private used = 0;
  private readonly bytesPerColumn: number;

  /** `maxBytes` bounds the keys and values held, over all groups (float32 on every backend). */
  constructor(
    config: Pick<ModelConfig, 'nLayers' | 'dModel'>,
    readonly maxBytes: number,
  ) {
    this.bytesPerColumn = config.nLayers * 2 * config.dModel * 4;
  }

  /** Bytes of keys and values held now. */
  get bytes(): number {
    return this.used;
  }

  /** Prompts cached now. */
  get size(): number {
    return this.entries.length;
  }

  /**
   * The longest cached prefix of `prompt`, at most `prompt.length - 1` tokens (the last prompt token
   * is always run, for its logits); undefined when no cached prompt shares a first token with it.
   */
  lookup(prompt: readonly number[]): PrefixHit | undefined {
    let best: Entry | undefined;
    let bestLength = 0;
    const limit = prompt.length - 1;
    for (const entry of this.entries) {
      const length = commonPrefix(entry.tokens, prompt, limit);
      if (length > bestLength) {
        best = entry;
        bestLength = length;
      }
    }
    if (best === undefined) return undefined;
    this.entries.splice(this.entries.indexOf(best), 1);
    this.entries.push(best);
    const { row, reused, freshFrom, group } = best;
    return { length: bestLength, row, reused, freshFrom, group };
  }

  /**
   * Holds one pass's keys and values (`layers`, tensors this cache now owns) for `prompts`, and
   * drops cached prompts they extend; frees the tensors at once when they exceed the budget.
   */
  store(layers: LayerCache[], prompts: readonly (CachedPrompt & { tokens: readonly number[] })[]): void {
    const [batch, , columns] = layers[0]!.k.shape;
    const bytes = batch * columns * this.bytesPerColumn;
    if (bytes > this.maxBytes || prompts.length === 0) {
      disposeLayers(layers);
      return;
    }
    const group: Group = { layers, bytes, live: 0 };
    this.used += bytes;
    this.entries = this.entries.filter((entry) => {
      const covered = prompts.some(
        (p) => commonPrefix(entry.tokens, p.tokens, entry.tokens.length) === entry.tokens.length,
      );
      if (covered) this.release(entry);
      return !covered;
    });
    for (const prompt of prompts) {
      this.entries.push({ ...prompt, tokens: [...prompt.tokens], group });
      group.live += 1;
    }
    while (this.used > this.maxBytes) this.release(this.entries.shift()!);
  }

  /** Drops every prompt and frees its keys and values (the weights changed, or the policy is disposed). */
  clear(): void {
    for (const entry of this.entries) this.release(entry);
    this.entries = [];
  }

  private release(entry: Entry): void {
    const { group } = entry;
    group.live -= 1;
    if (group.live === 0) {
      disposeLayers(group.layers);
      this.used -= group.bytes;
    }
  }
}

function commonPrefix(a: readonly number[], b: readonly number[], limit: number): number {
  const end = Math.min(a.length, b.length, limit);
  let i = 0;
  while (i < end && a[i] === b[i]) i++;
  return i;
}

function disposeLayers(layers: readonly LayerCache[]): void {
  for (const layer of layers) tf.dispose([layer.k, layer.v]);
}
