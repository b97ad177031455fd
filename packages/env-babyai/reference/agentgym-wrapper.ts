// Drives reference/drive-agentgym-wrapper.py (AgentGym's own BabyAI text layer, imported from the
// checkout that AGENTENV_BABYAI names; it is not on PyPI) from TypeScript, for the benchmark's
// text-layer ratios: the commands ours was timed on go in, AgentGym's rate and a digest of the texts
// it answered come back.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseOrThrow } from '@pilotrl/core';
import { z } from 'zod';
import { ReferenceEngineError, referenceInstalled, referencePython, referenceSetupCommand } from './client';

/** The variable naming a checkout's `agentenv-babyai` folder (the one that holds `agentenv_babyai/`). */
export const AGENTGYM_CHECKOUT_VARIABLE = 'AGENTENV_BABYAI';
const driverScript = join(import.meta.dirname, 'drive-agentgym-wrapper.py');

/** The checkout's folder, or why AgentGym's wrapper cannot be driven here (one line). */
export function agentgymCheckout(): { folder: string } | { missing: string } {
  const given = process.env[AGENTGYM_CHECKOUT_VARIABLE];
  if (given === undefined || given === '') {
    return {
      missing: `they need AgentGym's source, which is not on PyPI; set ${AGENTGYM_CHECKOUT_VARIABLE}=/path/to/AgentGym/agentenv-babyai (a checkout of github.com/WooooDyy/AgentGym)`,
    };
  }
  const folder = resolve(given);
  if (!existsSync(join(folder, 'agentenv_babyai', 'environment.py'))) {
    return {
      missing: `${AGENTGYM_CHECKOUT_VARIABLE}=${given} holds no agentenv_babyai/environment.py; point it at a checkout's agentenv-babyai folder`,
    };
  }
  if (!referenceInstalled()) return { missing: `they need the reference venv; run ${referenceSetupCommand}` };
  return { folder };
}

export type AgentgymWrapperJob =
  /** `BabyAI(game_name=level, seed=seed)`, its `step` per command, `reset()` after a finished episode. */
  | { kind: 'commands'; level: string; seed: number; commands: readonly string[] }
  /** AgentGym's server object without HTTP: `reset(id, data_idx)`, then `step(id, command)` per command. */
  | { kind: 'server'; episodes: readonly { data_idx: number; commands: readonly string[] }[] };

const answerSchema = z.object({
  steps: z.number().int(),
  /** Commands per second, resets included in the time. */
  steps_per_second: z.number(),
  /** `textsDigest` of the reset observations and answers, in order. */
  digest: z.string(),
});
export type AgentgymWrapperAnswer = z.infer<typeof answerSchema>;

/** Plays `job` on AgentGym's wrapper from the checkout in `folder`, in a fresh Python process. */
export function runAgentgymWrapper(folder: string, job: AgentgymWrapperJob): AgentgymWrapperAnswer {
  let output: string;
  try {
    // stderr is piped, not shown: Gym warns on import that it is unmaintained.
    output = execFileSync(referencePython, [driverScript, folder], {
      input: JSON.stringify(job),
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? '');
    throw new ReferenceEngineError(
      `reference/drive-agentgym-wrapper.py failed on AgentGym's checkout ${folder}:\n${stderr.slice(-2000)}\nIs the venv current? Run ${referenceSetupCommand}`,
    );
  }
  return parseOrThrow(answerSchema, JSON.parse(output), 'drive-agentgym-wrapper.py answer');
}

/** sha256 of the texts joined by NUL, as drive-agentgym-wrapper.py computes it. */
export function textsDigest(texts: readonly string[]): string {
  return createHash('sha256').update(texts.join('\0'), 'utf8').digest('hex');
}
