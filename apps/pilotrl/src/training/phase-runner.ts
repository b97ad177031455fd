// The contract between the curriculum loop and the phases it runs: what a run gives a phase
// (config, run directory, the envs with their providers, the policy it trains, where to report) and what a phase
// gives back each iteration (its metrics and episodes).
import type { Episode, Rng } from '@pilotrl/core';
import type { CurriculumConfig } from '../config/curriculum-config';
import type { ProgressStream } from '../reporting/progress';
import type { RunEnv } from '../run/run-envs';
import type { RunPolicy } from '../run/run-policy';

export interface RunContext {
  config: CurriculumConfig;
  runDir: string;
  /** The envs it trains on: one, or a mixture's in its order. */
  envs: RunEnv[];
  policy: RunPolicy;
  /** Writes a status line (checkpoints, evals) to the user. */
  log: (line: string) => void;
  progress: ProgressStream;
}

export interface PhaseRunner {
  iterate(rng: Rng, iteration: number): Promise<{ metrics: Record<string, number>; episodes: Episode[] }>;
  close(): Promise<void>;
  /** What the phase carries from one iteration to the next, for mid-phase checkpoints. */
  exportState?(): unknown;
  importState?(state: unknown): void;
}
