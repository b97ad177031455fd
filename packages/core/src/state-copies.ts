// State copies: an optional env capability for search at test time. An env that offers it can copy
// itself mid-episode into an independent env whose future is the original's: the same commands
// give the same results in both, and stepping one never moves the other. A planner then tries
// commands on copies and plays only the one it chooses on the real env.
import type { TextEnv } from './env';
import { InvalidArgumentError } from './errors';

/** The capability: a copy of the episode as it stands now. */
export interface StateCopies {
  /** An independent env in this env's current state. Copying before `reset` is an `EnvError`. */
  copy(): Promise<CopyableEnv>;
}

/** An env that can copy itself; its copies can be copied again. */
export type CopyableEnv = TextEnv & StateCopies;

/** Whether `env` offers state copies. */
export function canCopyState(env: TextEnv): env is CopyableEnv {
  return typeof (env as Partial<StateCopies>).copy === 'function';
}

/** A batch of envs whose members can be copied, e.g. a vector env over copyable envs. */
export interface VectorStateCopies {
  /** A copy of the env in slot `index`; rejects when that env cannot be copied. */
  copyAt(index: number): Promise<CopyableEnv>;
}

/** Whether a vector env offers copies of its members. */
export function canCopyAt<V extends object>(vectorEnv: V): vectorEnv is V & VectorStateCopies {
  return typeof (vectorEnv as Partial<VectorStateCopies>).copyAt === 'function';
}

/** `env` as a copyable env, or an error that names the env and what to do instead. */
export function requireStateCopies(env: TextEnv, purpose: string): CopyableEnv {
  if (!canCopyState(env)) {
    throw new InvalidArgumentError(
      `env "${env.envId}" cannot copy its state, which ${purpose} needs; use an env that implements copy() (see StateCopies in @pilotrl/core) or a search that does not step copies`,
    );
  }
  return env;
}
