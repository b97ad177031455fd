// Where a run's training begins: the envs and policy of a fresh run (checked before any training),
// or those of an interrupted run with the trainer state of its latest checkpoint.
import { ConfigError } from '@pilotrl/core';
import { type TfjsPolicy, TfjsPolicy as TfjsPolicyClass } from '@pilotrl/policy-tfjs';
import { latestCheckpoint, readTrainerState, type TrainerState } from './checkpoint';
import type { CurriculumConfig } from './config';
import { checkEnvAndSplits, checkFirstPromptFits } from './preflight';
import { runPaths } from './run-dir';
import { type RunEnv, runEnvsFor } from './run-envs';
import { backendOption, createPolicy, trainTokenizer } from './runtime';

/** Builds the envs and policy of a fresh run (tokenizer trained on every env's oracle demonstrations). */
export async function startRun(config: CurriculumConfig): Promise<{
  envs: RunEnv[];
  policy: TfjsPolicy;
  dataHashes: Record<string, string>;
}> {
  const envs = runEnvsFor(config);
  for (const env of envs) await checkEnvAndSplits(env.config, env.provider);
  const policy = await initialPolicy(config, envs);
  try {
    for (const env of envs) await checkFirstPromptFits(env.config, env.provider, policy.policy.sampler());
  } catch (error) {
    policy.policy.dispose();
    throw error;
  }
  return { envs, ...policy };
}

async function initialPolicy(
  config: CurriculumConfig,
  envs: readonly RunEnv[],
): Promise<{ policy: TfjsPolicy; dataHashes: Record<string, string> }> {
  if (config.policy.init !== undefined) {
    const policy = await loadPolicy(config, config.policy.init);
    if (config.policy.valueHead && !policy.model.config.valueHead) {
      policy.dispose();
      throw new ConfigError(
        `policy.valueHead: the checkpoint ${config.policy.init} (policy.init) was built without a value head`,
      );
    }
    return { policy, dataHashes: {} };
  }
  const { tokenizer, corpusHash } = await trainTokenizer(config, envs);
  const policy = await createPolicy(config, tokenizer);
  return { policy, dataHashes: { tokenizerCorpus: corpusHash } };
}

/** Loads the envs and the latest checkpoint of an interrupted run. */
export async function resumeRun(
  config: CurriculumConfig,
  runDir: string,
): Promise<{ envs: RunEnv[]; policy: TfjsPolicy; state: TrainerState | undefined }> {
  const envs = runEnvsFor(config);
  const checkpoint = latestCheckpoint(runPaths(runDir).checkpoints);
  if (checkpoint === undefined) return { ...(await startRun(config)), state: undefined };
  const policy = await loadPolicy(config, `${checkpoint}/policy`);
  return { envs, policy, state: readTrainerState(checkpoint) };
}

/** Saved weights, sampling with the run's seed on the configured backend. */
function loadPolicy(config: CurriculumConfig, dir: string): Promise<TfjsPolicy> {
  return TfjsPolicyClass.load(dir, {
    name: config.name,
    samplingSeed: config.seed,
    ...backendOption(config.policy.backend),
  });
}
