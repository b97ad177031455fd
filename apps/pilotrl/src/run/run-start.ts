// Where a run's training begins: the envs and policy of a fresh run (checked before any training),
// or those of an interrupted run with the trainer state of its latest checkpoint.

import type { CurriculumConfig } from '../config/curriculum-config';
import { checkEnvAndSplits, checkFirstPromptFits, checkOraclePlans } from '../config/preflight';
import { latestCheckpoint, readTrainerState, type TrainerState } from './checkpoint';
import { runPaths } from './run-dir';
import { type RunEnv, runEnvsFor } from './run-envs';
import { createRunPolicy, loadRunPolicy, type RunPolicy } from './run-policy';

/**
 * Builds the envs and policy of a fresh run (a tfjs tokenizer trained on every env's oracle
 * demonstrations); `log` receives the backend's progress lines.
 */
export async function startRun(
  config: CurriculumConfig,
  log?: (line: string) => void,
): Promise<{
  envs: RunEnv[];
  policy: RunPolicy;
  dataHashes: Record<string, string>;
}> {
  const envs = runEnvsFor(config);
  for (const env of envs) await checkEnvAndSplits(env);
  // Before anything is trained: the first evaluation would refuse it only after the SFT.
  if (config.eval.oraclePlan) checkOraclePlans(envs);
  const { policy, dataHashes } =
    config.policy.init === undefined
      ? await createRunPolicy(config, envs, log)
      : { policy: await loadRunPolicy(config, config.policy.init), dataHashes: {} };
  try {
    for (const env of envs) await checkFirstPromptFits(env, policy.sampler());
  } catch (error) {
    policy.dispose();
    throw error;
  }
  return { envs, policy, dataHashes };
}

/** Loads the envs and the latest checkpoint of an interrupted run. */
export async function resumeRun(
  config: CurriculumConfig,
  runDir: string,
): Promise<{ envs: RunEnv[]; policy: RunPolicy; state: TrainerState | undefined }> {
  const envs = runEnvsFor(config);
  const checkpoint = latestCheckpoint(runPaths(runDir).checkpoints);
  if (checkpoint === undefined) return { ...(await startRun(config)), state: undefined };
  const policy = await loadRunPolicy(config, `${checkpoint}/policy`);
  return { envs, policy, state: readTrainerState(checkpoint) };
}
