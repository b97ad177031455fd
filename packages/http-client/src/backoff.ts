// How long to wait between attempts: exponential backoff under a cap, with or without full jitter,
// the server's Retry-After when it sends one, and a sleep the caller's signal cuts short.

export interface BackoffOptions {
  /** The ceiling of the first wait; it doubles after each retry. */
  baseDelayMs: number;
  /** The longest wait. */
  maxDelayMs: number;
  /** `full`: a wait drawn uniformly below the ceiling (spreads clients that failed together); `none`: the ceiling itself. */
  jitter: 'full' | 'none';
}

/** The wait before retry number `retry` (0-based): min(maxDelayMs, baseDelayMs·2^retry), jittered by `random` in [0, 1). */
export function backoffDelayMs(
  options: BackoffOptions,
  retry: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** retry);
  return options.jitter === 'full' ? Math.floor(random() * ceiling) : ceiling;
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
