// `pilotrl train`: a fresh run from a config file or preset, or `--resume <run-dir>`; writes the
// report when the curriculum is done.
import { existsSync, readdirSync, rmdirSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { CheckpointError, InvalidArgumentError, type PolicyBackendStart } from '@pilotrl/core';
import type { BackendChoice } from '@pilotrl/policy-tfjs';
import { type CurriculumConfig, loadConfigFile } from '../config/curriculum-config';
import { presetConfig } from '../config/presets';
import { loadRunPlugins } from '../plugins/load';
import { policyBackendOf } from '../policies/registry';
import { writeReport } from '../reporting/report';
import { JsonlWriter } from '../run/jsonl';
import {
  createRunDir,
  defaultRunDir,
  lockRunDir,
  packageVersions,
  readRunConfig,
  runPaths,
  sha256,
} from '../run/run-dir';
import type { RunEnv } from '../run/run-envs';
import type { EvalRecord } from '../run/run-records';
import { resumeRun, startRun } from '../run/run-start';
import { TensorBoardLog } from '../run/tensorboard-log';
import { evalSeedOf, runCurriculum } from '../training/curriculum';
import type { CliIo } from './io';

export const PACKAGE_NAMES = [
  'pilotrl',
  '@pilotrl/core',
  '@pilotrl/agent',
  '@pilotrl/env-testkit',
  '@pilotrl/env-alfworld',
  '@pilotrl/env-babyai',
  '@pilotrl/env-maze',
  '@pilotrl/env-textcraft',
  '@pilotrl/env-wordle',
  '@pilotrl/llm',
  '@pilotrl/optim',
  '@pilotrl/policy-tfjs',
  '@pilotrl/rewards',
  '@pilotrl/tinker',
  '@tensorflow/tfjs-core',
  '@tensorflow/tfjs-backend-wasm',
  'zod',
];

/** A config from a `.yaml`/`.json` path (with the plug-ins it names loaded), or a preset name. */
export async function resolveConfig(nameOrPath: string): Promise<CurriculumConfig> {
  return /\.(ya?ml|json)$/i.test(nameOrPath) || existsSync(nameOrPath)
    ? await loadConfigFile(nameOrPath)
    : presetConfig(nameOrPath);
}

/**
 * SHA-256 of the task lists a run reads (ids, seeds and goals of the first tasks of every split),
 * under `tasks/<split>`, or `tasks/<env>/<split>` in a mixture.
 */
async function taskHashes(envs: readonly RunEnv[]): Promise<Record<string, string>> {
  const hashes: Record<string, string> = {};
  for (const { id, config, provider } of envs) {
    for (const split of provider.tasks.splits()) {
      const limit = split === config.env.trainSplit ? 200 : config.eval.episodes;
      const tasks = await provider.tasks.tasks(split, { offset: 0, limit });
      hashes[envs.length > 1 ? `tasks/${id}/${split}` : `tasks/${split}`] = sha256(JSON.stringify(tasks));
    }
  }
  return hashes;
}

export interface TrainOptions {
  /** A file path or preset name, or an already validated config. */
  config?: string | CurriculumConfig;
  out?: string;
  resume?: string;
  /** Overrides the config's `policy.backend`. */
  backend?: 'auto' | BackendChoice;
  report: boolean;
}

/** Starts the policy's backend before anything slow, so the first lines say what runs and where. */
async function startBackend(
  config: CurriculumConfig,
  log: (line: string) => void,
): Promise<PolicyBackendStart> {
  const started = await policyBackendOf(config.policy).start(config.policy, 'train');
  log(`pilotrl: ${started.line}`);
  return started;
}

/** `config` with `--backend` over its policy's `backend`, for a policy backend that has one. */
export function withBackend(config: CurriculumConfig, backend: TrainOptions['backend']): CurriculumConfig {
  if (backend === undefined) return config;
  const policyBackend = policyBackendOf(config.policy);
  if (!policyBackend.offers.backendChoice) {
    throw new InvalidArgumentError(
      `--backend ${backend} chooses a tfjs backend, but curriculum "${config.name}" trains on ${policyBackend.trainsOn} (policy.kind: ${policyBackend.id}); drop --backend`,
    );
  }
  return { ...config, policy: { ...config.policy, backend } };
}

export async function train(
  options: TrainOptions,
  io: CliIo,
  argv: readonly string[],
): Promise<{ runDir: string; evals: EvalRecord[] }> {
  const log = (line: string) => io.stderr.write(`${line}\n`);
  let runDir: string;
  let evals: EvalRecord[];
  if (options.resume !== undefined) {
    if (options.config !== undefined) {
      throw new InvalidArgumentError(
        `--resume continues ${options.resume} with the config it was started with; drop --config (or give --out for a new run)`,
      );
    }
    runDir = options.resume;
    await loadRunPlugins(runDir);
    const config = withBackend(readRunConfig(runDir), options.backend);
    const release = lockRunDir(runDir);
    try {
      log(`pilotrl: resuming ${runDir}`);
      await startBackend(config, log);
      const { envs, policy, state } = await resumeRun(config, runDir);
      if (state === undefined) {
        // Killed before its first checkpoint: the run starts over, so its partial logs go.
        const paths = runPaths(runDir);
        for (const path of [paths.metrics, paths.episodes, paths.evals]) new JsonlWriter(path).truncateTo(0);
        new TensorBoardLog(paths.tensorboard).truncateTo(0);
        log('pilotrl: no checkpoint yet; starting the run over');
      }
      try {
        evals = await runCurriculum({ config, runDir, envs, policy, log, progress: io.stderr }, state);
      } finally {
        policy.dispose();
      }
    } finally {
      release();
    }
  } else {
    if (options.config === undefined)
      throw new InvalidArgumentError('pilotrl train needs --config <file|preset> or --resume <run-dir>');
    const config = withBackend(
      typeof options.config === 'string' ? await resolveConfig(options.config) : options.config,
      options.backend,
    );
    runDir = options.out ?? defaultRunDir(config);
    if (existsSync(runPaths(runDir).manifest)) {
      throw new CheckpointError(
        `${runDir} already holds a run; pass --resume ${runDir} to continue it, or choose a new --out`,
      );
    }
    const existed = existsSync(runDir);
    const release = lockRunDir(runDir);
    try {
      evals = await trainFresh(config, runDir, log, io, argv);
    } finally {
      release();
      // A run refused before it wrote anything leaves no directory behind.
      if (!existed && readdirSync(runDir).length === 0) rmdirSync(runDir);
    }
  }
  if (options.report) {
    const files = writeReport(runDir);
    log(`pilotrl: report written to ${files.html}`);
  }
  return { runDir, evals };
}

/** A fresh run of `config` into the (locked) `runDir`. */
async function trainFresh(
  config: CurriculumConfig,
  runDir: string,
  log: (line: string) => void,
  io: CliIo,
  argv: readonly string[],
): Promise<EvalRecord[]> {
  log(`pilotrl: ${config.name} → ${runDir}`);
  const started = await startBackend(config, log);
  const { envs, policy, dataHashes } = await startRun(config, (line) => log(`pilotrl: ${line}`));
  createRunDir(runDir, config, {
    name: config.name,
    createdAt: new Date().toISOString(),
    command: ['pilotrl', ...argv],
    seeds: {
      master: config.seed,
      policyInit: config.policy.seed,
      policySampling: config.seed,
      eval: evalSeedOf(config),
    },
    packages: packageVersions(PACKAGE_NAMES),
    dataHashes: { ...dataHashes, ...(await taskHashes(envs)) },
    platform: {
      node: process.version,
      os: platform(),
      arch: arch(),
      backend: policy.backendName,
      ...started.platform,
    },
  });
  log(`pilotrl: ${policy.describe()}`);
  try {
    return await runCurriculum({ config, runDir, envs, policy, log, progress: io.stderr });
  } finally {
    policy.dispose();
  }
}
