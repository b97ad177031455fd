import type { CopyableEnv, TextEnv } from '@pilotrl/core';
import { describe, expect, it } from 'vitest';
import { createCorridorEnv } from './corridor';
import { EnvCheckError } from './env-checks';
import { createKeyDoorEnv } from './key-door';
import { createRecipeEnv } from './recipe';
import { checkStateCopies } from './state-copy-checks';

describe('state copies of the toy envs', () => {
  it.each([
    ['corridor', createCorridorEnv],
    ['key-door', createKeyDoorEnv],
    ['recipe', createRecipeEnv],
  ])(
    '%s: a copy has the future of its original and stepping it leaves the original alone',
    async (_, create) => {
      await checkStateCopies(() => create(), { resets: [{ seed: 0 }, { seed: 5 }, { seed: 9 }] });
    },
  );

  it('a copy keeps the step count, so the step limit truncates it where it truncates the original', async () => {
    const original = createCorridorEnv({ maxSteps: 3 });
    await original.reset({ seed: 1 });
    await original.step('look');
    await original.step('look');
    const copy = await original.copy();
    expect((await copy.step('look')).truncated).toBe(true);
    expect((await original.step('look')).truncated).toBe(true);
  });

  it('copying before reset is an error', async () => {
    await expect(createCorridorEnv().copy()).rejects.toThrow(/before reset/);
  });
});

describe('checkStateCopies', () => {
  it('fails an env whose copies share state with the original', async () => {
    // A "copy" that is the same env: stepping it moves the original too.
    const sharing = (): CopyableEnv => {
      const env = createCorridorEnv();
      const same: CopyableEnv = {
        envId: env.envId,
        reset: (options) => env.reset(options),
        step: (action) => env.step(action),
        copy: async () => {
          await env.copy();
          return same;
        },
      };
      return same;
    };
    await expect(checkStateCopies(sharing)).rejects.toThrow(EnvCheckError);
    await expect(checkStateCopies(sharing)).rejects.toThrow(/must not share state/);
  });

  it('fails an env without copy()', async () => {
    const plain = (): TextEnv => {
      const { copy: _, ...rest } = createCorridorEnv();
      return rest;
    };
    await expect(checkStateCopies(plain)).rejects.toThrow(/has no copy\(\) method/);
  });
});
