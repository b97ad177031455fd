// The chat client's retry options and which statuses it retries; @pilotrl/http-client waits
// (exponential backoff with full jitter, or the server's Retry-After) and tries again.
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
