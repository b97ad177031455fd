// Splits a training batch into consecutive chunks of bounded token count. An RL batch holds one
// sequence per generation (tasks × group × turns), far more than one pass of the wasm backend
// holds in memory, so the policy runs it a chunk at a time.
import type { Datum } from '@pilotrl/core';

/** Consecutive groups of datums whose token counts sum to at most `maxTokens` (at least one each). */
export function tokenChunks(datums: readonly Datum[], maxTokens: number): Datum[][] {
  const out: Datum[][] = [];
  let current: Datum[] = [];
  let tokens = 0;
  for (const datum of datums) {
    if (current.length > 0 && tokens + datum.tokenIds.length > maxTokens) {
      out.push(current);
      current = [];
      tokens = 0;
    }
    current.push(datum);
    tokens += datum.tokenIds.length;
  }
  if (current.length > 0) out.push(current);
  return out;
}
