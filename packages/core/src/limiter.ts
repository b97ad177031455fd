// A counting semaphore: at most `limit` tasks run at once, the rest wait in arrival order.
import { InvalidArgumentError } from './errors';

export interface Limiter {
  readonly limit: number;
  /** Runs `task` once a slot is free; the slot is released when it settles. */
  run<T>(task: () => Promise<T>): Promise<T>;
  /** Tasks running now. */
  readonly active: number;
}

export function createLimiter(limit: number): Limiter {
  if (!Number.isInteger(limit) || limit < 1) {
    throw new InvalidArgumentError(`Concurrency limit must be a positive integer, got ${limit}`);
  }
  let active = 0;
  const waiting: (() => void)[] = [];
  const acquire = (): Promise<void> => {
    if (active < limit) {
      active += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => waiting.push(resolve));
  };
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else active -= 1;
  };
  return {
    limit,
    get active() {
      return active;
    },
    async run(task) {
      await acquire();
      try {
        return await task();
      } finally {
        release();
      }
    },
  };
}
