// Bounded retries with exponential backoff, for connecting only: a reset or step that reached the
// server is never sent twice, since the server may have played it.
import { EnvError, TimeoutError } from '@pilotrl/core';
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
 * between tries. Only a `ConnectFailure` is retried; after the last one it becomes a
 * `TimeoutError` (every attempt timed out) or an `EnvError` naming `what`, the attempts and the
 * last cause. Any other error is thrown at once.
 */
export async function withConnectRetries<T>(
  config: ConnectionConfig,
  what: string,
  attempt: () => Promise<T>,
): Promise<T> {
  const attempts = config.connectRetries + 1;
  let delay = config.retryDelayMs;
  let allTimedOut = true;
  let last = '';
  for (let i = 1; i <= attempts; i++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof ConnectFailure)) throw error;
      allTimedOut &&= error.timedOut;
      last = error.message;
      if (i < attempts) {
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay = Math.min(MAX_DELAY_MS, Math.max(1, delay * 2));
      }
    }
  }
  const tries = `${attempts} attempt${attempts === 1 ? '' : 's'}`;
  const message = `${what}: could not connect after ${tries} (last: ${last}); is the server running at ${config.url}? (connectRetries and retryDelayMs set how long to keep trying)`;
  throw allTimedOut ? new TimeoutError(message) : new EnvError(message);
}
