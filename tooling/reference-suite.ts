// The engine suite's Python references, each in a venv under <repo>/.venv made by a setup script
// (tooling/reference-venv.sh): a suite runs when its reference is installed, skips with the reason
// and the setup command printed when it is not, and fails instead when CI is set (CI installs them all).
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const repoRoot = resolve(import.meta.dirname, '..');
const inCi = (process.env.CI ?? '') !== '' && process.env.CI !== 'false';

export interface ReferenceSuite {
  /** Whether the suite's tests run: the reference is installed, or CI must fail without it. */
  readonly run: boolean;
  readonly installed: boolean;
}

/**
 * Whether the tests of `what` run, given whether their reference is `installed`; prints why they
 * skip otherwise, with `setup` (the command that installs it) and what it needs (`needs`).
 */
export function referenceSuite(
  what: string,
  installed: boolean,
  setup: string,
  needs = 'PyPI, a minute',
): ReferenceSuite {
  if (!installed && !inCi) {
    console.warn(
      [
        '',
        `!! SKIPPED: ${what}.`,
        `!! Its reference is not installed; install it (${needs}):`,
        `!!     ${setup}`,
        '!! With CI=true these tests fail instead of skipping.',
        '',
      ].join('\n'),
    );
  }
  return { run: installed || inCi, installed };
}

export interface ReferenceVenv extends ReferenceSuite {
  /** The venv's directory, `.venv/<name>` at the repository root. */
  readonly dir: string;
  readonly python: string;
}

/** The venv `.venv/<name>` that `setup` makes, as the suite `what` needs it. */
export function referenceVenv(name: string, what: string, setup: string, needs?: string): ReferenceVenv {
  const dir = join(repoRoot, '.venv', name);
  const python = join(dir, 'bin', 'python');
  // reference-venv.sh writes the requirements' hash last, so a venv without it is half made.
  const installed = existsSync(python) && existsSync(join(dir, '.requirements.sha256'));
  return { ...referenceSuite(what, installed, setup, needs), dir, python };
}
