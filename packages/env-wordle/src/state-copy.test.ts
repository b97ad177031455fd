import { checkStateCopies } from '@pilotrl/env-testkit';
import { describe, expect, it } from 'vitest';
import { createWordleEnv } from './env';

describe('wordle state copies', () => {
  it.each(['redraw', 'fixed'] as const)(
    'a copy has the future of its original, and stepping it leaves the original alone (secret: %s)',
    async (secret) => {
      await checkStateCopies(() => createWordleEnv({ secret }), {
        resets: [{ seed: 0 }, { seed: 3 }, { seed: 11 }],
        stepsBeforeCopy: 2,
        stepsAfterCopy: 4,
      });
    },
  );

  it('copying before reset is an error', async () => {
    await expect(createWordleEnv().copy()).rejects.toThrow(/before reset/);
  });
});
