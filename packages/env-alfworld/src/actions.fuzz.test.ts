// Fuzzing of AlfworldEnv's `step` with seeded strange commands (near misses of admissible ones, and
// empty, 1 MB, unicode and control-character strings) along random episodes of generated tasks in
// both dialects: every answer is a StepResult of core's schema, with a bounded observation, or an
// EnvError.
import { createRng, EnvError, type StepResult, stepResultSchema } from '@pilotrl/core';
import { strangeAction } from '@pilotrl/env-testkit/test';
import { describe, expect, it } from 'vitest';
import { AlfworldEnv } from './env';

/** Longest observation accepted: ALFWorld's longest (a room's description) is a few hundred characters. */
const MAX_OBSERVATION = 8192;

describe('action fuzz', () => {
  for (const dialect of ['legacy', 'current'] as const) {
    it(`answers 200 strange commands with well-formed results (${dialect} dialect)`, async () => {
      const rng = createRng(`alfworld-action-fuzz/${dialect}`);
      const env = new AlfworldEnv({ dialect, maxSteps: 25, split: 'valid_seen' });
      const failures: string[] = [];
      let last: StepResult = await env.reset({ seed: rng.int(3) });
      for (let i = 0; i < 200; i++) {
        if (last.terminated || last.truncated) last = await env.reset({ seed: rng.int(3) });
        const action = strangeAction(rng, last.admissibleActions);
        const shown = JSON.stringify(action.slice(0, 40));
        try {
          last = await env.step(action);
        } catch (error) {
          if (!EnvError.isInstance(error)) failures.push(`step ${i} (${shown}) threw ${String(error)}`);
          continue;
        }
        if (!stepResultSchema.safeParse(last).success)
          failures.push(`step ${i} (${shown}): malformed result`);
        if (last.observation.length > MAX_OBSERVATION)
          failures.push(`step ${i} (${shown}): observation of ${last.observation.length} characters`);
        if (last.info.valid && action.length > 1000)
          failures.push(`step ${i} (${shown}): a command of ${action.length} characters was valid`);
      }
      expect(failures.slice(0, 5)).toEqual([]);
    });
  }
});
