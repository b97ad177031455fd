// A TrainablePolicy view that splits `forward` and `forwardBackward` into chunks of bounded token
// count. An RL batch holds one sequence per generation (tasks × group × turns), far more than one
// forward pass of the wasm backend holds in memory. Losses are sums over tokens and gradients
// accumulate until `optimStep`, so the chunked result equals the unchunked one.
import type { Datum, ForwardBackwardResult, ForwardResult, TrainablePolicy } from '@pilotrl/core';

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

export function chunkedTrainer(policy: TrainablePolicy, maxTokens = 8192): TrainablePolicy {
  return {
    get name() {
      return policy.name;
    },
    get version() {
      return policy.version;
    },
    async forward(datums) {
      const results: ForwardResult[] = [];
      for (const chunk of tokenChunks(datums, maxTokens)) results.push(...(await policy.forward(chunk)));
      return results;
    },
    async forwardBackward(datums, loss, options) {
      const total: ForwardBackwardResult = { loss: 0, logprobs: [], metrics: {} };
      const chunks = tokenChunks(datums, maxTokens);
      const sums: Record<string, number> = {};
      for (const chunk of chunks) {
        const result = await policy.forwardBackward(chunk, loss, options);
        total.loss += result.loss;
        total.logprobs.push(...result.logprobs);
        for (const [key, value] of Object.entries(result.metrics)) sums[key] = (sums[key] ?? 0) + value;
      }
      // Chunk metrics are means or sums the policy defines; their mean over chunks is reported.
      for (const [key, value] of Object.entries(sums)) total.metrics[key] = value / chunks.length;
      return total;
    },
    optimStep: (params) => policy.optimStep(params),
    sampler: () => policy.sampler(),
    encode: (text) => policy.encode(text),
    saveState: (dir) => policy.saveState(dir),
    loadState: (dir) => policy.loadState(dir),
  };
}
