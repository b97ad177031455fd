// Fuzzing of the toy envs' `step` with seeded strange commands (near misses of admissible ones, and
// empty, 1 MB, unicode and control-character strings) along random episodes: every answer is a
// StepResult of core's schema, with a bounded observation, or an EnvError.
import { createRng } from '@pilotrl/core';
import { describe, expect, it } from 'vitest';
import { strangeStepProblems } from './fuzzing';
import { testkitEnvs } from './index';

/** Longest observation a toy env gives, far above any real one: an echoed 1 MB command would pass it. */
const MAX_OBSERVATION = 4096;

describe('action fuzz', () => {
  for (const { envId, create } of testkitEnvs) {
    it(`${envId} answers 150 strange commands with well-formed results`, async () => {
      const rng = createRng(`action-fuzz/${envId}`);
      const problems = await strangeStepProblems(create({ maxSteps: 20 }), rng, {
        steps: 150,
        maxObservation: MAX_OBSERVATION,
        nextSeed: () => rng.int(1000),
      });
      expect(problems.slice(0, 5)).toEqual([]);
    });
  }
});
