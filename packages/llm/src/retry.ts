// Retry policy for HTTP calls: exponential backoff with full jitter, and the server's
// Retry-After when it sends one.
import { z } from 'zod';

export const retryOptionsSchema = z.object({
  /** Retries after the first attempt (0 = no retry). */
  maxRetries: z.number().int().nonnegative().default(4),
  /** Backoff before retry k is uniform in [0, min(maxDelayMs, baseDelayMs * 2^k)]. */
  baseDelayMs: z.number().nonnegative().default(500),
  /** Longest wait; a Retry-After beyond it ends the retries instead of stalling. */
  maxDelayMs: z.number().nonnegative().default(30_000),
  /** Whether a request that ran past its timeout is tried again. */
  retryOnTimeout: z.boolean().default(true),
  /** Whether a 2xx whose body is not the answer asked for (truncated JSON, no choices) is tried again. */
  retryOnMalformed: z.boolean().default(true),
});
export type RetryOptions = z.input<typeof retryOptionsSchema>;
export type ResolvedRetryOptions = z.output<typeof retryOptionsSchema>;

/** Status codes worth another try: rate limiting and server-side failures. */
export function isRetriableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/** The backoff before retry number `retry` (0-based), with full jitter from `random` in [0, 1). */
export function backoffDelayMs(options: ResolvedRetryOptions, retry: number, random: () => number): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** retry);
  return Math.floor(random() * ceiling);
}

/** Retry-After as milliseconds: either delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(header: string | null, now: number): number | undefined {
  if (header === null) return undefined;
  const trimmed = header.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** Waits `ms`, or rejects early with the signal's reason when it aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
