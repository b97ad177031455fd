// Bounded retries with exponential backoff (@pilotrl/http-client's loop), for connecting only: a
// reset or step that reached the server is never sent twice, since the server may have played it.
import { EnvError, TimeoutError } from '@pilotrl/core';
import { retry } from '@pilotrl/http-client';
import type { ConnectionConfig } from './options';

/** The longest wait between two attempts. */
const MAX_DELAY_MS = 10_000;

/** A connection attempt that failed in a way worth another try (refused, reset, timed out). */
export class ConnectFailure extends Error {
  constructor(
    message: string,
    readonly timedOut: boolean,
  ) {
    super(message);
  }
}

/**
 * Runs `attempt` up to `1 + connectRetries` times, waiting `retryDelayMs`, then twice that, ...
 * (at most 10 s) between tries. Only a `ConnectFailure` is retried; after the last one it becomes a
 * `TimeoutError` (every attempt timed out) or an `EnvError` naming `what`, the attempts and the
 * last cause. Any other error is thrown at once.
 */
export async function withConnectRetries<T>(
  config: ConnectionConfig,
  what: string,
  attempt: () => Promise<T>,
): Promise<T> {
  let allTimedOut = true;
  const outcome = await retry(attempt, {
    maxRetries: config.connectRetries,
    baseDelayMs: config.retryDelayMs,
    maxDelayMs: MAX_DELAY_MS,
    jitter: 'none',
    retryOn: (error) => {
      if (!(error instanceof ConnectFailure)) return false;
      allTimedOut &&= error.timedOut;
      return true;
    },
  });
  if (outcome.ok) return outcome.value;
  if (!(outcome.error instanceof ConnectFailure)) throw outcome.error;
  const tries = `${outcome.attempts} attempt${outcome.attempts === 1 ? '' : 's'}`;
  const message = `${what}: could not connect after ${tries} (last: ${outcome.error.message}); is the server running at ${config.url}? (connectRetries and retryDelayMs set how long to keep trying)`;
  throw allTimedOut ? new TimeoutError(message) : new EnvError(message);
}
