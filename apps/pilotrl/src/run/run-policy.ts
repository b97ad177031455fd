// The policy a run trains, whichever backend holds its weights (`policy.kind`: `tfjs` in this
// process, `tinker` on a Tinker server, or a plug-in's): made or loaded through the backend's
// descriptor. Beyond core's TrainablePolicy, a run needs three things the backends do differently: a
// supervised example in the policy's own tokens, a frozen copy of the weights (the KL reference) and
// a way to let go of it all.
import type { RunPolicy } from '@pilotrl/core';
import type { CurriculumConfig } from '../config/curriculum-config';
import { policyBackendOf } from '../policies/registry';
import type { RunEnv } from './run-envs';
import { demonstrationTexts } from './run-setup';

export type { FrozenPolicy, ReplyExample, RunPolicy } from '@pilotrl/core';

/** The policy of a fresh run, and the hashes of the data it was built from (the tfjs tokenizer's corpus). */
export async function createRunPolicy(
  config: CurriculumConfig,
  envs: readonly RunEnv[],
  log: (line: string) => void = () => {},
): Promise<{ policy: RunPolicy; dataHashes: Record<string, string> }> {
  return policyBackendOf(config.policy).create(config.policy, {
    name: config.name,
    samplingSeed: config.seed,
    log,
    demonstrationTexts: (tasks) => demonstrationTexts(envs, tasks),
  });
}

/** The policy saved in `dir` (a checkpoint's `policy`, or `policy.init`), ready to train or sample. */
export function loadRunPolicy(config: CurriculumConfig, dir: string): Promise<RunPolicy> {
  return policyBackendOf(config.policy).load(config.policy, dir, {
    name: config.name,
    samplingSeed: config.seed,
  });
}
