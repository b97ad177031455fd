// The one retry loop: runs an attempt until it succeeds, fails in a way `retryOn` does not retry,
// or runs out of retries, waiting a backoff (or the wait the server asked for) in between. It
// returns how it ended instead of throwing, so that each caller raises its own errors.
import { abortableSleep, type BackoffOptions, backoffDelayMs } from './backoff';

export interface RetryPolicy extends BackoffOptions {
  /** Retries after the first attempt (0 = one attempt only). */
  maxRetries: number;
}

export interface RetryHooks {
  /** The jitter's source of numbers in [0, 1) (default Math.random; a seeded one makes waits repeatable). */
  random?: (() => number) | undefined;
  /** How to wait (default: a timer the signal cuts short); tests pass one that returns at once. */
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
  /** Aborting it ends a wait between attempts. */
  signal?: AbortSignal | undefined;
  /** Called before each wait, with the attempt that failed (1-based) and its error. */
  onRetry?: ((event: { attempt: number; error: unknown; delayMs: number }) => void) | undefined;
}

export interface RetryOptions extends RetryPolicy, RetryHooks {
  /** Whether an attempt that threw `error` is worth another try. */
  retryOn: (error: unknown) => boolean;
  /** The wait the server asked for after `error` (Retry-After), used instead of the backoff. */
  serverWaitMs?: ((error: unknown) => number | undefined) | undefined;
}

/**
 * Why the retries ended without a result: the error is not retried, the retries are used up, the
 * server asked to wait longer than `maxDelayMs`, or the signal aborted a wait.
 */
export type RetryStop = 'not_retryable' | 'out_of_retries' | 'wait_too_long' | 'aborted';

export type RetryOutcome<T> =
  | { ok: true; value: T; attempts: number }
  | { ok: false; error: unknown; attempts: number; stop: RetryStop; serverWaitMs?: number };

export async function retry<T>(
  attempt: (attemptNumber: number) => Promise<T>,
  options: RetryOptions,
): Promise<RetryOutcome<T>> {
  const random = options.random ?? Math.random;
  const sleep = options.sleep ?? abortableSleep;
  for (let attempts = 1; ; attempts++) {
    let error: unknown;
    try {
      return { ok: true, value: await attempt(attempts), attempts };
    } catch (caught) {
      error = caught;
    }
    if (!options.retryOn(error)) return { ok: false, error, attempts, stop: 'not_retryable' };
    if (attempts > options.maxRetries) return { ok: false, error, attempts, stop: 'out_of_retries' };
    const serverWaitMs = options.serverWaitMs?.(error);
    if (serverWaitMs !== undefined && serverWaitMs > options.maxDelayMs) {
      return { ok: false, error, attempts, stop: 'wait_too_long', serverWaitMs };
    }
    const delayMs = serverWaitMs ?? backoffDelayMs(options, attempts - 1, random);
    options.onRetry?.({ attempt: attempts, error, delayMs });
    try {
      await sleep(delayMs, options.signal);
    } catch {
      return { ok: false, error, attempts, stop: 'aborted' };
    }
  }
}
