// A run that starts where another run finished: the source's last checkpoint, taken at the end of
// its last phase, and its logs up to that checkpoint become the new run's start, and
// `train --resume` trains the phases the source did not have. Runs that share a warm start (the
// reproduction's variants) train it once; the result is the run that would have trained it itself.
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { CheckpointError, ConfigError } from '@pilotrl/core';
import type { CurriculumConfig } from '../config/curriculum-config';
import { curriculumPhases } from '../training/phase-plan';
import { latestCheckpoint, readTrainerState } from './checkpoint';
import { createRunDir, readManifest, readRunConfig, runPaths } from './run-dir';

/** The config keys (dotted) where `a` and `b` differ, comparing nested objects key by key. */
function differences(a: unknown, b: unknown, path = ''): string[] {
  if (
    typeof a === 'object' &&
    typeof b === 'object' &&
    a !== null &&
    b !== null &&
    !Array.isArray(a) &&
    !Array.isArray(b)
  ) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((key) =>
      differences(
        (a as Record<string, unknown>)[key],
        (b as Record<string, unknown>)[key],
        path === '' ? key : `${path}.${key}`,
      ),
    );
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [path];
}

/**
 * Where `target` would differ from `source` while training the source's phases: every key but the
 * name, and the source's stages as the first of the target's.
 */
export function forkDifferences(source: CurriculumConfig, target: CurriculumConfig): string[] {
  const shared = (config: CurriculumConfig) => ({
    ...config,
    name: '',
    stages: config.stages.slice(0, source.stages.length),
  });
  return differences(shared(source), shared(target));
}

/**
 * Starts the run `targetDir` of `config` from the finished run `sourceDir`. A target stopped before
 * its first checkpoint (a fork cut short) is started again. Throws a ConfigError when the two
 * configs differ on the source's phases, and a CheckpointError when the source has not finished or
 * the target holds a run with a checkpoint.
 */
export function forkRun(
  sourceDir: string,
  targetDir: string,
  config: CurriculumConfig,
  command: readonly string[],
): void {
  const source = readRunConfig(sourceDir);
  const differing = forkDifferences(source, config);
  if (differing.length > 0) {
    throw new ConfigError(
      `${config.name} cannot start from ${sourceDir}: its config differs on the phases that run trained (${differing.join(', ')})`,
    );
  }
  const sourcePaths = runPaths(sourceDir);
  const checkpoint = latestCheckpoint(sourcePaths.checkpoints);
  const state = checkpoint === undefined ? undefined : readTrainerState(checkpoint);
  if (
    checkpoint === undefined ||
    state === undefined ||
    state.phase < curriculumPhases(source).length ||
    state.iteration !== 0
  ) {
    throw new CheckpointError(
      `${sourceDir} has not finished its phases, so no run can start from it yet; finish it with pilotrl train --resume ${sourceDir}`,
    );
  }
  const targetPaths = runPaths(targetDir);
  if (existsSync(targetPaths.manifest)) {
    if (latestCheckpoint(targetPaths.checkpoints) !== undefined) {
      throw new CheckpointError(
        `${targetDir} already holds a run with checkpoints; pass --resume ${targetDir} to continue it`,
      );
    }
    // Without its manifest the directory holds no run; making it again clears the rest.
    rmSync(targetPaths.manifest);
  }
  const manifest = readManifest(sourceDir);
  createRunDir(targetDir, config, {
    ...manifest,
    name: config.name,
    createdAt: new Date().toISOString(),
    command: [...command],
    forkedFrom: { run: sourceDir, checkpoint: basename(checkpoint), phases: state.phase },
  });
  for (const log of ['metrics', 'episodes', 'evals', 'tensorboard'] as const) {
    if (!existsSync(sourcePaths[log])) continue;
    const bytes = readFileSync(sourcePaths[log]).subarray(0, state.logBytes[log] ?? 0);
    writeFileSync(targetPaths[log], bytes);
  }
  mkdirSync(targetPaths.checkpoints, { recursive: true });
  cpSync(checkpoint, join(targetPaths.checkpoints, basename(checkpoint)), { recursive: true });
  copyFileSync(join(sourcePaths.checkpoints, 'latest'), join(targetPaths.checkpoints, 'latest'));
}
