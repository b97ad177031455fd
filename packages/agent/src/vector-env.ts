// A VectorEnv over independent TextEnvs: an active mask, at most `concurrency` env calls in flight,
// and a per-call time limit. An env that throws, times out or returns a malformed result is
// deactivated and reports `truncated: true` with `info.error`; the next `reset` replaces it with a
// fresh env from its factory, since a timed-out env may still be busy.
import {
  createLimiter,
  InvalidArgumentError,
  parseOrThrow,
  type ResetOptions,
  requireStateCopies,
  requireStepChecks,
  resetOptionsSchema,
  type StepChecks,
  type StepResult,
  stepResultSchema,
  type TextEnv,
  type VectorEnv,
  type VectorStateCopies,
  type VectorStepChecks,
} from '@pilotrl/core';
import { z } from 'zod';

export const vectorEnvOptionsSchema = z.strictObject({
  /** Number of envs; required with a single factory, must match the list length otherwise. */
  size: z.number().int().positive().optional(),
  /** Env calls in flight at once; default: all of them. */
  concurrency: z.number().int().positive().optional(),
  /** Time limit of one env's reset or step, in ms. */
  timeoutMs: z.number().positive().default(30_000),
});
export type VectorEnvOptions = z.input<typeof vectorEnvOptionsSchema>;

type Factory = () => TextEnv;

function failed(observation: string, error: string): StepResult {
  return {
    observation,
    admissibleActions: [],
    reward: 0,
    terminated: false,
    truncated: true,
    info: { won: false, valid: false, error },
  };
}

/**
 * Batches envs made by `factories` (one per slot) or by one factory called `size` times.
 * `reset` needs one options object per env; `step` one action per env, `null` to skip an env;
 * `copyAt(i)` copies env i in its current state, when its env offers state copies, and
 * `stepChecksAt(i)` checks plan steps against env i's state, when its env offers step checks.
 */
export function createVectorEnv(
  factories: Factory | readonly Factory[],
  options: VectorEnvOptions = {},
): VectorEnv & VectorStateCopies & VectorStepChecks {
  const opts = parseOrThrow(vectorEnvOptionsSchema, options, 'vector env options');
  const makers: readonly Factory[] = typeof factories === 'function' ? [] : factories;
  if (typeof factories === 'function') {
    if (opts.size === undefined) {
      throw new InvalidArgumentError('createVectorEnv: with a single factory, pass options.size');
    }
  } else if (makers.length === 0 || (opts.size !== undefined && opts.size !== makers.length)) {
    throw new InvalidArgumentError(
      `createVectorEnv: got ${makers.length} factories but size ${opts.size}; pass a non-empty list and ` +
        'omit size or make it match',
    );
  }
  const size = opts.size ?? makers.length;
  const factoryAt = (i: number): Factory => (typeof factories === 'function' ? factories : makers[i]!);
  const limiter = createLimiter(opts.concurrency ?? size);
  /** Runs `work(i)` for every index, at most `concurrency` at once. */
  const pool = (indices: readonly number[], work: (i: number) => Promise<void>) =>
    Promise.all(indices.map((i) => limiter.run(() => work(i))));
  const envs: (TextEnv | undefined)[] = Array.from({ length: size }, () => undefined);
  const broken = Array.from({ length: size }, () => false);
  const active = Array.from({ length: size }, () => false);
  const lastObservation = Array.from({ length: size }, () => '');
  let started = false;
  let busy = false;

  const envAt = (i: number): TextEnv => {
    if (envs[i] === undefined || broken[i]) {
      // A broken env may still be running a call; close it without waiting for it.
      if (envs[i]?.close) envs[i].close().catch(() => undefined);
      envs[i] = factoryAt(i)();
      broken[i] = false;
    }
    return envs[i];
  };

  /** One env call under the time limit; any failure deactivates the env and becomes a result. */
  const guarded = async (i: number, what: string, call: (env: TextEnv) => Promise<StepResult>) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${what} timed out after ${opts.timeoutMs} ms`)),
        opts.timeoutMs,
      );
    });
    try {
      const raw = await Promise.race([call(envAt(i)), timeout]);
      const result = parseOrThrow(stepResultSchema, raw, `${what} result`);
      lastObservation[i] = result.observation;
      active[i] = !result.terminated && !result.truncated;
      return raw;
    } catch (error) {
      broken[i] = true;
      active[i] = false;
      const message = error instanceof Error ? error.message : String(error);
      return failed(lastObservation[i]!, `env ${i}: ${message}`);
    } finally {
      clearTimeout(timer);
    }
  };

  const exclusive = async <T>(what: string, run: () => Promise<T>): Promise<T> => {
    if (busy)
      throw new InvalidArgumentError(
        `vector env: ${what} called while another call is running; await it first`,
      );
    busy = true;
    try {
      return await run();
    } finally {
      busy = false;
    }
  };

  const checkLength = (what: string, length: number) => {
    if (length !== size) {
      throw new InvalidArgumentError(
        `vector env: ${what} got ${length} entries for ${size} envs; pass one per env`,
      );
    }
  };

  return {
    size,
    active,
    reset(resets: readonly ResetOptions[]) {
      return exclusive('reset', async () => {
        checkLength('reset', resets.length);
        const parsed = resets.map((r, i) => parseOrThrow(resetOptionsSchema, r, `reset options of env ${i}`));
        const results: StepResult[] = new Array(size);
        await pool([...parsed.keys()], async (i) => {
          lastObservation[i] = '';
          results[i] = await guarded(i, `env ${i} reset`, (env) => env.reset(parsed[i]!));
        });
        started = true;
        return results;
      });
    },
    step(actions: readonly (string | null)[]) {
      return exclusive('step', async () => {
        if (!started) throw new InvalidArgumentError('vector env: step() was called before reset()');
        checkLength('step', actions.length);
        const results: (StepResult | null)[] = actions.map(() => null);
        const stepped = actions.flatMap((action, i) => (action !== null && active[i] ? [i] : []));
        await pool(stepped, async (i) => {
          results[i] = await guarded(i, `env ${i} step`, (env) => env.step(actions[i]!));
        });
        return results;
      });
    },
    async copyAt(i: number) {
      const env = started && !broken[i] ? envs[i] : undefined;
      if (env === undefined) {
        throw new InvalidArgumentError(`vector env: env ${i} has no episode to copy; reset it first`);
      }
      return requireStateCopies(env, 'vector env copyAt()').copy();
    },
    stepChecksAt(i: number, purpose: string): StepChecks {
      const env = started && !broken[i] ? envs[i] : undefined;
      if (env === undefined) {
        throw new InvalidArgumentError(`vector env: env ${i} has no episode to check; reset it first`);
      }
      const checking = requireStepChecks(env, purpose);
      // The checks alone: stepping the env stays with the vector env and its time limit.
      return {
        cannotCheckStep: (step) => checking.cannotCheckStep(step),
        checkStep: (step) => checking.checkStep(step),
      };
    },
    async close() {
      await Promise.all(
        envs.map(async (env, i) => {
          if (env?.close && !broken[i]) await env.close();
        }),
      );
      envs.fill(undefined);
      active.fill(false);
      started = false;
    },
  };
}
