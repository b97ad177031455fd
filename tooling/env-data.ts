// Where the env reference data of shared/env-data is (PILOTRL_ENV_DATA, default
// <repo>/../shared/env-data): fixture tests skip with the reason printed when it is absent, and fail
// instead when PILOTRL_ENV_DATA names it (CI names it whenever the data sits beside the clone).
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const repoRoot = resolve(import.meta.dirname, '..');
export const envDataDir = resolve(process.env.PILOTRL_ENV_DATA ?? join(repoRoot, '../shared/env-data'));
const required = (process.env.PILOTRL_ENV_DATA ?? '') !== '';

/** The path of a fixture under the data directory, or undefined (with a warning) when it is absent. */
export function fixture(path: string): string | undefined {
  const full = join(envDataDir, path);
  if (existsSync(full)) return full;
  const reason = `fixture ${full} not found; set PILOTRL_ENV_DATA to the env-data directory (shared/env-data)`;
  if (required) throw new Error(`PILOTRL_ENV_DATA is set, so fixture tests cannot skip: ${reason}`);
  console.warn(`\n!! SKIPPED fixture tests: ${reason}\n`);
  return undefined;
}
