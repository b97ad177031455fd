import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from './errors';
import { createLimiter } from './limiter';

describe('createLimiter', () => {
  it('runs at most `limit` tasks at once and starts the waiting ones in arrival order', async () => {
    const limiter = createLimiter(2);
    const started: number[] = [];
    const releases: (() => void)[] = [];
    const runs = [0, 1, 2, 3].map((index) =>
      limiter.run(async () => {
        started.push(index);
        await new Promise<void>((resolve) => releases.push(resolve));
        return index;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(limiter.active).toBe(2);
    releases[1]!();
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1, 2]);
    releases[0]!();
    await new Promise((resolve) => setImmediate(resolve));
    releases[2]!();
    releases[3]!();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
    expect(limiter.active).toBe(0);
  });

  it('frees the slot of a task that fails', async () => {
    const limiter = createLimiter(1);
    await expect(limiter.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await limiter.run(async () => 'next')).toBe('next');
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => createLimiter(0)).toThrow(InvalidArgumentError);
    expect(() => createLimiter(1.5)).toThrow(/positive integer/);
  });
});
