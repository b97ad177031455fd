// Fuzzing of AlfworldEnv's `step` with seeded strange commands (near misses of admissible ones, and
// empty, 1 MB, unicode and control-character strings) along random episodes of generated tasks in
// both dialects: every answer is a StepResult of core's schema, with a bounded observation, or an
// EnvError.
import { createRng } from '@pilotrl/core';
import { strangeStepProblems } from '@pilotrl/env-testkit/test';
import { describe, expect, it } from 'vitest';
import { AlfworldEnv } from './env';

/** Longest observation accepted: ALFWorld's longest (a room's description) is a few hundred characters. */
const MAX_OBSERVATION = 8192;

describe('action fuzz', () => {
  for (const dialect of ['legacy', 'current'] as const) {
    it(`answers 200 strange commands with well-formed results (${dialect} dialect)`, async () => {
      const rng = createRng(`alfworld-action-fuzz/${dialect}`);
      const env = new AlfworldEnv({ dialect, maxSteps: 25, split: 'valid_seen' });
      const problems = await strangeStepProblems(env, rng, {
        steps: 200,
        maxObservation: MAX_OBSERVATION,
        nextSeed: () => rng.int(3),
      });
      expect(problems.slice(0, 5)).toEqual([]);
    });
  }
});
