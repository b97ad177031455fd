// Drives reference/play.py (TextWorld's PDDL engine with ALFWorld's demangler) from TypeScript:
// jobs go in as JSON lines, episodes come back parsed. Used by the differential test and the bench.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PilotRLError, parseOrThrow } from '@pilotrl/core';
import { z } from 'zod';

const referenceDir = import.meta.dirname;
const repoRoot = resolve(referenceDir, '../../..');

/** The venv that `reference/setup.sh` creates. */
export const referenceVenv = join(repoRoot, '.venv', 'alfworld-reference');
export const referencePython = join(referenceVenv, 'bin', 'python');
/** The command that installs the reference engine, relative to the repository root. */
export const referenceSetupCommand = 'packages/env-alfworld/reference/setup.sh';

export class ReferenceEngineError extends PilotRLError {
  static override readonly errorName = 'ReferenceEngineError';
}

/** Whether the reference engine is installed (setup.sh finished: its stamp file exists). */
export function referenceInstalled(): boolean {
  return existsSync(referencePython) && existsSync(join(referenceVenv, '.requirements.sha256'));
}

/** Python and package versions of the installed reference engine. */
export function referenceVersions(): Record<string, string> {
  const output = execFileSync(referencePython, [join(referenceDir, 'play.py'), '--check'], {
    encoding: 'utf8',
  });
  return parseOrThrow(z.record(z.string(), z.string()), JSON.parse(output), 'reference engine versions');
}

/** The three strings of a `.tw-pddl` game file. */
export interface ReferenceGame {
  pddl_domain: string;
  grammar: string;
  pddl_problem: string;
}

export interface ReferenceJob {
  id: string;
  /** The game itself, or `gameFile`: a path to a `.tw-pddl` file. */
  game?: ReferenceGame;
  gameFile?: string;
  /** `alfworld` (default): ALFWorld's demangled names; `pddl`: TextWorld's plain entity ids. */
  names?: 'alfworld' | 'pddl';
  /** Commands to play in order; or `random` to let the harness draw admissible commands. */
  actions?: readonly string[];
  /** Draws with the generator of @pilotrl/core `createRng(seed)`, as `rng.pick(admissible)`. */
  random?: { steps: number; seed: number | string };
}

const stepLine = z.object({
  id: z.string(),
  step: z.number().int().nonnegative(),
  action: z.string().optional(),
  observation: z.string(),
  admissible: z.array(z.string()),
  won: z.boolean(),
});
const endLine = z.object({
  id: z.string(),
  end: z.literal(true),
  steps: z.number().int().nonnegative(),
  loadSeconds: z.number(),
  stepSeconds: z.number(),
});
const errorLine = z.object({ id: z.string().nullable(), error: z.string() });
const outputLine = z.union([stepLine, endLine, errorLine]);

export type ReferenceStep = z.infer<typeof stepLine>;

export interface ReferenceEpisode {
  id: string;
  /** Index 0 is the state after reset; index k the state after the k-th command. */
  steps: ReferenceStep[];
  /** Seconds spent loading and resetting the game. */
  loadSeconds: number;
  /** Seconds spent inside the engine's step() (admissible commands included). */
  stepSeconds: number;
}

export interface PlayOptions {
  /** Cache TextWorld's pure string parsers: same output, about 3x faster steps. */
  memoize?: boolean;
  /** Python processes to spread the jobs over (default 1). */
  workers?: number;
}

/** Plays every job on the reference engine; episodes come back in job order. */
export async function playReference(
  jobs: readonly ReferenceJob[],
  options: PlayOptions = {},
): Promise<ReferenceEpisode[]> {
  if (!referenceInstalled()) {
    throw new ReferenceEngineError(
      `The reference engine is not installed at ${referenceVenv}; run ${referenceSetupCommand}`,
    );
  }
  const ids = new Set<string>();
  for (const job of jobs) {
    if (ids.has(job.id)) throw new ReferenceEngineError(`Duplicate reference job id "${job.id}"`);
    ids.add(job.id);
  }
  const workers = Math.max(1, Math.min(options.workers ?? 1, jobs.length));
  const shares = Array.from({ length: workers }, (_, w) => jobs.filter((_, i) => i % workers === w));
  const results = await Promise.all(shares.map((share) => runWorker(share, options.memoize ?? false)));
  const byId = new Map(results.flat().map((episode) => [episode.id, episode]));
  return jobs.map((job) => byId.get(job.id)!);
}

function runWorker(jobs: readonly ReferenceJob[], memoize: boolean): Promise<ReferenceEpisode[]> {
  const args = [join(referenceDir, 'play.py'), ...(memoize ? ['--memoize'] : [])];
  const child = spawn(referencePython, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const episodes = new Map<string, ReferenceEpisode>();
  const failures: string[] = [];
  let pending = '';
  let stderr = '';

  const onLine = (text: string) => {
    if (text.trim() === '') return;
    const line = parseOrThrow(outputLine, JSON.parse(text), 'reference engine output line');
    if ('error' in line) {
      failures.push(`job ${line.id ?? '(unknown)'}: ${line.error}`);
      return;
    }
    let episode = episodes.get(line.id);
    if (episode === undefined) {
      episode = { id: line.id, steps: [], loadSeconds: 0, stepSeconds: 0 };
      episodes.set(line.id, episode);
    }
    if ('end' in line) {
      episode.loadSeconds = line.loadSeconds;
      episode.stepSeconds = line.stepSeconds;
    } else {
      episode.steps.push(line);
    }
  };

  return new Promise((resolvePromise, reject) => {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop()!;
      try {
        lines.forEach(onLine);
      } catch (error) {
        child.kill();
        reject(error);
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-4000);
    });
    child.on('error', (error) =>
      reject(new ReferenceEngineError(`Could not start ${referencePython}: ${error.message}`)),
    );
    child.on('close', (code) => {
      if (code !== 0) {
        reject(new ReferenceEngineError(`reference/play.py exited with code ${code}:\n${stderr}`));
      } else if (failures.length > 0) {
        reject(new ReferenceEngineError(`The reference engine rejected jobs:\n${failures.join('\n')}`));
      } else {
        const missing = jobs.filter((job) => !episodes.has(job.id)).map((job) => job.id);
        if (missing.length > 0) {
          reject(new ReferenceEngineError(`The reference engine returned nothing for ${missing.join(', ')}`));
        } else {
          resolvePromise(jobs.map((job) => episodes.get(job.id)!));
        }
      }
    });
    child.stdin.on('error', () => {
      // A dead child is reported by 'close' with its stderr; the broken pipe adds nothing.
    });
    child.stdin.end(jobs.map((job) => JSON.stringify(job)).join('\n') + '\n');
  });
}
