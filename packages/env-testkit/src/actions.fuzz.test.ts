// Fuzzing of the toy envs' `step` with seeded strange commands (near misses of admissible ones, and
// empty, 1 MB, unicode and control-character strings) along random episodes: every answer is a
// StepResult of core's schema, with a bounded observation, or an EnvError.
import { createRng, EnvError, type StepResult, stepResultSchema } from '@pilotrl/core';
import { describe, expect, it } from 'vitest';
import { testkitEnvs } from './index';
import { strangeAction } from './strange-actions';

/** Longest observation a toy env gives, far above any real one: an echoed 1 MB command would pass it. */
const MAX_OBSERVATION = 4096;

describe('action fuzz', () => {
  for (const { envId, create } of testkitEnvs) {
    it(`${envId} answers 150 strange commands with well-formed results`, async () => {
      const rng = createRng(`action-fuzz/${envId}`);
      const env = create({ maxSteps: 20 });
      const failures: string[] = [];
      let last: StepResult = await env.reset({ seed: rng.int(1000) });
      for (let i = 0; i < 150; i++) {
        if (last.terminated || last.truncated) last = await env.reset({ seed: rng.int(1000) });
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
