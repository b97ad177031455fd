import { describe, expect, it } from 'vitest';
import { backoffDelayMs, parseRetryAfter } from './backoff';
import { retry } from './retry';

describe('backoff', () => {
  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });

  it('draws full-jitter backoff under a doubling ceiling capped by maxDelayMs', () => {
    const options = { baseDelayMs: 100, maxDelayMs: 1000, jitter: 'full' } as const;
    expect([0, 1, 2, 3, 4].map((k) => backoffDelayMs(options, k, () => 0.999))).toEqual([
      99, 199, 399, 799, 999,
    ]);
    expect(backoffDelayMs(options, 3, () => 0)).toBe(0);
  });

  it('waits the ceiling itself without jitter', () => {
    const options = { baseDelayMs: 100, maxDelayMs: 1000, jitter: 'none' } as const;
    expect([0, 1, 2, 3, 4].map((k) => backoffDelayMs(options, k))).toEqual([100, 200, 400, 800, 1000]);
  });
});

describe('retry', () => {
  const policy = {
    maxRetries: 2,
    baseDelayMs: 1,
    maxDelayMs: 1,
    jitter: 'none',
    sleep: async () => undefined,
  } as const;

  it('returns the first success with the attempts it took', async () => {
    const outcome = await retry(
      async (attempt) => {
        if (attempt < 3) throw new Error(`try ${attempt}`);
        return 'done';
      },
      { ...policy, retryOn: () => true },
    );
    expect(outcome).toEqual({ ok: true, value: 'done', attempts: 3 });
  });

  it('says why it stopped: not retryable, or out of retries', async () => {
    const boom = new Error('boom');
    const fail = async () => {
      throw boom;
    };
    expect(await retry(fail, { ...policy, retryOn: () => false })).toEqual({
      ok: false,
      error: boom,
      attempts: 1,
      stop: 'not_retryable',
    });
    expect(await retry(fail, { ...policy, retryOn: () => true })).toEqual({
      ok: false,
      error: boom,
      attempts: 3,
      stop: 'out_of_retries',
    });
  });
});
