// Gathers concurrent generation requests into batches, so a batched policy (e.g. a tfjs model)
// makes one `generate` call for many callers; batches run one at a time. A batch that fails is
// rerun one request at a time, so an error reaches only the request that caused it.
import type { GenerateRequest, GenerateResult, Policy } from '@pilotrl/core';

export interface RequestBatcherOptions {
  /** Most requests in one `policy.generate` call. */
  maxBatchSize: number;
  /** How long the first waiting request holds the batch open for others (0: until the next tick). */
  batchWindowMs: number;
}

export interface RequestBatcher {
  /** Queues `request` for the next batch; resolves to its result. */
  generate(request: GenerateRequest): Promise<GenerateResult>;
  /** Requests waiting for the next batch. */
  readonly queued: number;
}

interface Pending {
  request: GenerateRequest;
  resolve: (result: GenerateResult) => void;
  reject: (error: unknown) => void;
}

export function createRequestBatcher(policy: Policy, options: RequestBatcherOptions): RequestBatcher {
  const pending: Pending[] = [];
  let draining = false;
  let scheduled = false;

  const schedule = () => {
    if (scheduled || draining) return;
    scheduled = true;
    const start = () => {
      scheduled = false;
      void drain();
    };
    if (options.batchWindowMs > 0) setTimeout(start, options.batchWindowMs);
    else setImmediate(start);
  };

  async function drain() {
    draining = true;
    while (pending.length > 0) {
      const batch = pending.splice(0, options.maxBatchSize);
      try {
        await runBatch(batch);
      } catch (error) {
        if (batch.length === 1) {
          batch[0]!.reject(error);
          continue;
        }
        // One bad request (say, a prompt too long for the model) must not fail its neighbours:
        // run them one by one so the error reaches only the request that caused it.
        for (const item of batch) {
          try {
            await runBatch([item]);
          } catch (single) {
            item.reject(single);
          }
        }
      }
    }
    draining = false;
  }

  async function runBatch(batch: readonly Pending[]) {
    const results = await policy.generate(batch.map((item) => item.request));
    if (results.length !== batch.length) {
      throw new Error(
        `policy ${policy.name} returned ${results.length} results for ${batch.length} requests`,
      );
    }
    for (const [index, item] of batch.entries()) item.resolve(results[index]!);
  }

  return {
    generate: (request) =>
      new Promise<GenerateResult>((resolve, reject) => {
        pending.push({ request, resolve, reject });
        schedule();
      }),
    get queued() {
      return pending.length;
    },
  };
}
