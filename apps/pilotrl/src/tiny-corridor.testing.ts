// A curriculum small enough for tests that train for real: SFT of two steps and `stages` joint
// stages of two iterations on the testkit corridor, CLI ios that print nothing or keep it, and the
// CLI run from source in a child process.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { CliIo } from './commands/io';
import { type CurriculumConfig, type CurriculumConfigInput, parseConfig } from './config/curriculum-config';
import { runPaths } from './run/run-dir';
import { TensorBoardLog } from './run/tensorboard-log';

/** A joint stage of one iteration, one task and two samples, rewarded on the outcome alone. */
export const oneJointStage = {
  kind: 'joint',
  iterations: 1,
  tasksPerIteration: 1,
  groupSize: 2,
  learningRate: 1e-3,
  rewards: { outcome: 1 },
} as const;

export function tinyCorridorConfig(
  stages: number,
  overrides: Partial<CurriculumConfigInput> = {},
): CurriculumConfig {
  return parseConfig({
    name: `tiny-${stages}`,
    env: { id: 'testkit/corridor', maxSteps: 4 },
    policy: { size: 'tiny', tokenizerCorpusTasks: 5, vocabSize: 340, contextLength: 320 },
    agent: {
      prompt: 'compact',
      planRevision: 'never',
      historyWindow: 1,
      maxPlanTokens: 12,
      maxActionTokens: 10,
    },
    sft: {
      demonstrations: 5,
      steps: 2,
      batchSize: 2,
      learningRate: 1e-3,
      stepsPerIteration: 1,
      warmupSteps: 0,
    },
    stages: Array.from({ length: stages }, () => ({
      kind: 'joint' as const,
      iterations: 2,
      tasksPerIteration: 1,
      groupSize: 2,
      learningRate: 1e-3,
      rewards: { outcome: 1 },
    })),
    eval: { episodes: 2, every: 10, splits: ['valid_unseen'] },
    checkpoint: { every: 10, keep: 1 },
    ...overrides,
  });
}

export const quietIo: CliIo = {
  stdin: process.stdin,
  stdout: { write: () => true },
  stderr: { write: () => true },
};

/** A CLI io that feeds `input` as stdin lines and keeps what the command prints. */
export function capturedIo(input: string[] = []): CliIo & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    stdin: Readable.from(input.map((line) => `${line}\n`)),
    stdout: {
      write: (text: string) => {
        out += text;
        return true;
      },
    },
    stderr: {
      write: (text: string) => {
        err += text;
        return true;
      },
    },
    out: () => out,
    err: () => err,
  };
}

/**
 * A curriculum file for tests that kill and resume a trainer process: SFT in two iterations and a
 * joint stage of two, on the testkit corridor, with the given eval and checkpoint cadence.
 */
export function resumableCurriculumYaml(options: {
  name: string;
  evalEvery: number;
  checkpointEvery: number;
}) {
  return [
    `name: ${options.name}`,
    'seed: 7',
    'env: { id: testkit/corridor, maxSteps: 6 }',
    'policy: { size: tiny, tokenizerCorpusTasks: 10, vocabSize: 360, contextLength: 384 }',
    'agent: { paradigm: adaplan, prompt: compact, planRevision: never, historyWindow: 1, maxPlanTokens: 24, maxActionTokens: 12 }',
    'sft: { demonstrations: 10, steps: 4, batchSize: 4, learningRate: 0.01, stepsPerIteration: 2, warmupSteps: 1 }',
    'stages:',
    '  - { kind: joint, iterations: 2, tasksPerIteration: 2, groupSize: 2, learningRate: 0.001, rewards: { outcome: 1, overlong: 1 } }',
    `eval: { episodes: 2, every: ${options.evalEvery}, splits: [valid_unseen] }`,
    `checkpoint: { every: ${options.checkpointEvery}, keep: 2 }`,
    'sampleEpisodes: 1',
  ].join('\n');
}

/** Runs the CLI from source in a child process; `onStderr` sees the stderr so far and may kill the child. */
export function spawnPilotrl(
  args: string[],
  onStderr?: (text: string, child: ChildProcess) => void,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  const appDir = join(import.meta.dirname, '..');
  const child = spawn(
    process.execPath,
    ['--conditions=@pilotrl/source', '--import', 'tsx', join(appDir, 'src', 'bin.ts'), ...args],
    { cwd: appDir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    onStderr?.(stderr, child);
  });
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stderr })));
}

/**
 * Run records without the figures that measure the machine rather than the run (steps per second,
 * CPU seconds), which differ between any two runs; everything else must repeat exactly.
 */
export function withoutMeasuredCosts(records: readonly unknown[]): Record<string, unknown>[] {
  const measured = (key: string) =>
    key === 'charts/SPS' || key === 'cpuSeconds' || key.startsWith('compute/');
  return records.map((record) =>
    Object.fromEntries(Object.entries(record as object).filter(([key]) => !measured(key))),
  );
}

/**
 * The events of a run's TensorBoard file without their wall times and the scalars that measure the
 * machine (as `withoutMeasuredCosts` drops them from the records).
 */
export function eventsWithoutMeasuredCosts(runDir: string) {
  const measured = (tag: string) => /^charts\/SPS$|^compute\/|\/cpuSeconds$/.test(tag);
  return new TensorBoardLog(runPaths(runDir).tensorboard).read().map(({ step, fileVersion, scalars }) => ({
    step,
    fileVersion,
    scalars: scalars?.filter(({ tag }) => !measured(tag)),
  }));
}
