// A TrainablePolicy view of a TfjsPolicy that runs `forward` and `forwardBackward` over at most
// `chunk` datums at a time. TfjsPolicy puts every datum of a call in one batch, and an update
// over a few hundred ALFWorld turns then outgrows wasm's 4 GiB heap; gradients accumulate until
// `optimStep`, so a chunked `forwardBackward` gives the same step.
import type { Datum, ForwardBackwardResult, TrainablePolicy } from '@pilotrl/core';
import type { TfjsPolicy } from '@pilotrl/policy-tfjs';

export function chunkedPolicy(policy: TfjsPolicy, chunk: number): TrainablePolicy {
  const chunks = (datums: readonly Datum[]) =>
    Array.from({ length: Math.ceil(datums.length / chunk) }, (_, i) =>
      datums.slice(i * chunk, (i + 1) * chunk),
    );
  return {
    get name() {
      return policy.name;
    },
    get version() {
      return policy.version;
    },
    sampler: () => policy.sampler(),
    encode: (text) => policy.encode(text),
    saveState: (dir) => policy.saveState(dir),
    loadState: (dir) => policy.loadState(dir),
    optimStep: (params) => policy.optimStep(params),
    async forward(datums) {
      const results = [];
      for (const part of chunks(datums)) results.push(...(await policy.forward(part)));
      return results;
    },
    async forwardBackward(datums, loss, options) {
      const parts: ForwardBackwardResult[] = [];
      for (const part of chunks(datums)) parts.push(await policy.forwardBackward(part, loss, options));
      const metrics: Record<string, number> = {};
      for (const key of Object.keys(parts[0]?.metrics ?? {}))
        metrics[key] = parts.reduce((sum, p) => sum + (p.metrics[key] ?? 0), 0) / parts.length;
      return {
        loss: parts.reduce((sum, p) => sum + p.loss, 0),
        logprobs: parts.flatMap((p) => p.logprobs),
        metrics,
      };
    },
  };
}
