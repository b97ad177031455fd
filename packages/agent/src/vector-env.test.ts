import type { StepResult, TextEnv } from '@pilotrl/core';
import { corridorTasks, createCorridorEnv } from '@pilotrl/env-testkit';
import { describe, expect, it } from 'vitest';
import { createVectorEnv } from './vector-env';

/** Wraps an env so that every call counts towards a shared in-flight tally. */
function counted(env: TextEnv, tally: { now: number; max: number }): TextEnv {
  const track = async (run: () => Promise<StepResult>) => {
    tally.now += 1;
    tally.max = Math.max(tally.max, tally.now);
    // Yield to the event loop so that concurrent calls overlap if the vector env allows them.
    await new Promise((resolve) => setImmediate(resolve));
    try {
      return await run();
    } finally {
      tally.now -= 1;
    }
  };
  return { envId: env.envId, reset: (o) => track(() => env.reset(o)), step: (a) => track(() => env.step(a)) };
}

describe('createVectorEnv', () => {
  it('steps envs in lock step and masks those that ended', async () => {
    const tasks = await corridorTasks.tasks('valid_seen', { limit: 3 });
    const vector = createVectorEnv(() => createCorridorEnv(), { size: 3 });
    const first = await vector.reset(tasks);
    expect(first.map((r) => r.info.taskId)).toEqual(tasks.map((t) => t.taskId));
    expect(vector.active).toEqual([true, true, true]);

    // Env 1 stops at once (ending its episode), env 2 is skipped, env 0 looks around.
    const second = await vector.step(['look', 'stop', null]);
    expect(second[0]?.info.valid).toBe(true);
    expect(second[1]?.terminated).toBe(true);
    expect(second[2]).toBeNull();
    expect(vector.active).toEqual([true, false, true]);

    // A finished env yields null even when given an action.
    expect((await vector.step(['look', 'look', 'look']))[1]).toBeNull();
    await vector.reset(tasks);
    expect(vector.active).toEqual([true, true, true]);
    await vector.close();
  });

  it('keeps at most `concurrency` env calls in flight', async () => {
    const tally = { now: 0, max: 0 };
    const vector = createVectorEnv(() => counted(createCorridorEnv(), tally), { size: 6, concurrency: 2 });
    await vector.reset(Array.from({ length: 6 }, (_, seed) => ({ seed })));
    await vector.step(Array.from({ length: 6 }, () => 'look'));
    expect(tally.max).toBe(2);

    const unbounded = { now: 0, max: 0 };
    const wide = createVectorEnv(() => counted(createCorridorEnv(), unbounded), { size: 6 });
    await wide.reset(Array.from({ length: 6 }, (_, seed) => ({ seed })));
    expect(unbounded.max).toBe(6);
  });

  it('deactivates an env that hangs or throws and reports truncated with info.error', async () => {
    let made = 0;
    const factory = (): TextEnv => {
      const env = createCorridorEnv();
      const kind = made++;
      return {
        envId: env.envId,
        reset: (o) => env.reset(o),
        step: (a) => {
          if (kind === 1) return new Promise<StepResult>(() => undefined);
          if (kind === 2) throw new Error('engine crashed');
          return env.step(a);
        },
      };
    };
    const vector = createVectorEnv(factory, { size: 3, timeoutMs: 20 });
    const start = await vector.reset([{ seed: 0 }, { seed: 1 }, { seed: 2 }]);
    const results = await vector.step(['look', 'look', 'look']);
    expect(results[0]?.info.valid).toBe(true);
    expect(results[1]).toMatchObject({
      truncated: true,
      info: { valid: false, error: 'env 1: env 1 step timed out after 20 ms' },
    });
    expect(results[1]?.observation).toBe(start[1]?.observation);
    expect(results[2]).toMatchObject({ truncated: true, info: { error: 'env 2: engine crashed' } });
    expect(vector.active).toEqual([true, false, false]);

    // The next reset replaces the failed envs with fresh ones from the factory.
    await vector.reset([{ seed: 0 }, { seed: 1 }, { seed: 2 }]);
    expect(made).toBe(5);
    expect(vector.active).toEqual([true, true, true]);
  });

  it('rejects mismatched batches and overlapping calls with messages that say how to fix them', async () => {
    expect(() => createVectorEnv(() => createCorridorEnv())).toThrow(/options\.size/);
    expect(() => createVectorEnv([() => createCorridorEnv()], { size: 2 })).toThrow(/1 factories but size 2/);
    const vector = createVectorEnv([() => createCorridorEnv(), () => createCorridorEnv()]);
    await expect(vector.step(['look', 'look'])).rejects.toThrow(/before reset/);
    await expect(vector.reset([{ seed: 0 }])).rejects.toThrow(/1 entries for 2 envs/);
    const pending = vector.reset([{ seed: 0 }, { seed: 1 }]);
    await expect(vector.step(['look', 'look'])).rejects.toThrow(/await it first/);
    await pending;
  });
});
