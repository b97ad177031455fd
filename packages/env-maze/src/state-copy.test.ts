import { checkStateCopies } from '@pilotrl/env-testkit';
import { describe, expect, it } from 'vitest';
import { createMazeEnv } from './env';

describe('maze state copies', () => {
  it('a copy has the future of its original, and stepping it leaves the original alone', async () => {
    await checkStateCopies(() => createMazeEnv(), {
      resets: [{ seed: 0 }, { seed: 7 }, { seed: 13 }],
      stepsBeforeCopy: 4,
      stepsAfterCopy: 8,
    });
  });

  it('a copy keeps the steps taken, so it is truncated where the original is', async () => {
    const original = createMazeEnv({ maxSteps: 3 });
    await original.reset({ seed: 2 });
    await original.step('move up');
    await original.step('move up');
    const copy = await original.copy();
    expect((await copy.step('move up')).truncated).toBe(true);
    expect((await original.step('move up')).truncated).toBe(true);
  });

  it('copying before reset is an error', async () => {
    await expect(createMazeEnv().copy()).rejects.toThrow(/before reset/);
  });
});
