// `checkEnv`: registers the TextEnv conformance checks as vitest tests, one test per check, in the
// calling test file. Import it only from test files: vitest cannot be imported outside its runner.
import type { TextEnv } from '@pilotrl/core';
import { describe, it } from 'vitest';
import { buildEnvChecks, type EnvCheckOptions } from './env-checks';

export type { EnvCheckOptions } from './env-checks';

export interface CheckEnvOptions extends EnvCheckOptions {
  /** Title of the describe block; default: the `envId` of an env the factory creates. */
  name?: string;
  /** Time limit of each check in ms; default: the project's test timeout. */
  timeoutMs?: number;
}

/**
 * Adds a `describe` block holding one test per conformance check of the envs `factory` creates.
 * A failing test says what broke and where (reset options, step, action).
 */
export function checkEnv(factory: () => TextEnv, options: CheckEnvOptions): void {
  const { name, timeoutMs, ...checkOptions } = options;
  const checks = buildEnvChecks(factory, checkOptions);
  describe(`${name ?? factory().envId} conforms to TextEnv`, () => {
    for (const check of checks) it(check.name, () => check.run(), timeoutMs);
  });
}
