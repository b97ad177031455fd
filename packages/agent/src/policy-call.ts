// One batched policy call under a time limit, its results checked against the sampler contract,
// and the sampling seeds of an agent's requests: what the rollout and the test-time searches share.
import {
  type GenerateRequest,
  type GenerateResult,
  generateResultSchema,
  InvalidArgumentError,
  type Policy,
  parseOrThrow,
  TimeoutError,
} from '@pilotrl/core';

/** Mixes integers into a 31-bit sampling seed (murmur3's finaliser), so samples differ but repeat. */
export function mixSeed(...parts: number[]): number {
  let hash = 0x9e3779b9;
  for (const part of parts) {
    hash = Math.imul(hash ^ (part >>> 0), 0x85ebca6b);
    hash ^= hash >>> 13;
    hash = Math.imul(hash, 0xc2b2ae35);
    hash ^= hash >>> 16;
  }
  return hash >>> 1;
}

/** `requests` answered by `policy` in one call; `what` names them in errors. */
export async function callPolicy(
  policy: Policy,
  requests: GenerateRequest[],
  timeoutMs: number,
  what: string,
): Promise<GenerateResult[]> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(
        new TimeoutError(
          `policy "${policy.name}" did not answer ${requests.length} ${what} requests within ${timeoutMs} ms; raise callTimeoutMs or lower the batch`,
        ),
      );
    }, timeoutMs);
  });
  try {
    const results = await Promise.race([policy.generate(requests, { signal: controller.signal }), timeout]);
    if (results.length !== requests.length) {
      throw new InvalidArgumentError(
        `policy "${policy.name}" returned ${results.length} results for ${requests.length} ${what} requests`,
      );
    }
    return results.map((result, index) => {
      const parsed = parseOrThrow(
        generateResultSchema,
        result,
        `result ${index} of policy "${policy.name}" (${what})`,
      );
      if (parsed.logprobs.length !== parsed.tokenIds.length) {
        throw new InvalidArgumentError(
          `policy "${policy.name}" returned ${parsed.logprobs.length} logprobs for ${parsed.tokenIds.length} tokens (${what} result ${index})`,
        );
      }
      return parsed;
    });
  } finally {
    clearTimeout(timer);
  }
}
