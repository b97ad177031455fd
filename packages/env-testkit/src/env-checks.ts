// The TextEnv conformance checks, free of any test runner: `buildEnvChecks` lists them, `runEnvChecks`
// runs them and reports every failure with the reset options, step and action where it happened.
import { isDeepStrictEqual } from 'node:util';
import {
  createRng,
  oracleSolutionSchema,
  PilotRLError,
  parseOrThrow,
  type ResetOptions,
  resetOptionsSchema,
  type StepResult,
  stepResultSchema,
  type TaskSource,
  type TextEnv,
} from '@pilotrl/core';
import { z } from 'zod';

const textEnvFactorySchema = z.custom<() => TextEnv>((value) => typeof value === 'function', {
  message: 'expected a function that returns a new TextEnv',
});

const taskSourceSchema = z.custom<TaskSource>(
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    typeof (value as TaskSource).tasks === 'function' &&
    typeof (value as TaskSource).splits === 'function',
  { message: 'expected a TaskSource (an object with splits() and tasks())' },
);

export const envCheckOptionsSchema = z.strictObject({
  /** Episodes to play: each is reset with these options (give `taskId` when the env needs one). */
  resets: z
    .array(resetOptionsSchema)
    .min(1)
    .default([{ seed: 0 }, { seed: 1 }, { seed: 2 }]),
  /** Steps of the seeded random admissible policy in each determinism episode. */
  episodeSteps: z.number().int().positive().default(12),
  /** States along a random episode at which every admissible action is tried. */
  statesPerEpisode: z.number().int().positive().default(4),
  /** At most this many admissible actions are tried per state (the first ones in the env's order). */
  maxActionsPerState: z.number().int().positive().default(25),
  /**
   * The env's step limit: after `maxSteps` steps (valid or not) an episode that has not ended must
   * report `truncated: true`. `create` makes an env with that limit (default: the factory's env);
   * give a small limit so random play reaches it.
   */
  stepLimit: z.strictObject({
    maxSteps: z.number().int().positive(),
    create: textEnvFactorySchema.optional(),
  }),
  /** What `step` does before any `reset`: throw a PilotRLError, or return `valid: false`. */
  beforeReset: z.enum(['throws', 'invalid']).default('throws'),
  /** What `step` does after the episode ended: return `valid: false` (flags kept), or throw a PilotRLError. */
  afterEnd: z.enum(['invalid', 'throws']).default('invalid'),
  /** When given, the oracle must solve the first `tasksPerSplit` tasks of every split. */
  taskSource: taskSourceSchema.optional(),
  tasksPerSplit: z.number().int().positive().default(3),
});
export type EnvCheckOptions = z.input<typeof envCheckOptionsSchema>;
type ResolvedOptions = z.output<typeof envCheckOptionsSchema>;

export interface EnvCheck {
  readonly name: string;
  /** Resolves when the env passes; rejects with an `EnvCheckError` that says what broke. */
  run(): Promise<void>;
}

export interface EnvCheckResult {
  readonly name: string;
  readonly passed: boolean;
  /** What broke, with where (reset options, step, action); empty when passed. */
  readonly problem: string;
}

/** A conformance check failed; the message names the check, the episode and the step. */
export class EnvCheckError extends PilotRLError {
  static override readonly errorName = 'EnvCheckError';
}

const quote = (text: string) => JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text);
const where = (reset: ResetOptions, step?: number, action?: string) =>
  `reset ${JSON.stringify(reset)}` +
  (step === undefined ? '' : `, step ${step}`) +
  (action === undefined ? '' : ` (action ${quote(action)})`);

function firstDifference(a: unknown, b: unknown, path = ''): string {
  if (isDeepStrictEqual(a, b)) return '';
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const key of keys) {
      if (Object.hasOwn(a, key) !== Object.hasOwn(b, key)) {
        return `${path}.${key}: present on one side only (${Object.hasOwn(a, key) ? 'first' : 'second'})`;
      }
      const inner = firstDifference(
        (a as Record<string, unknown>)[key],
        (b as Record<string, unknown>)[key],
        `${path}.${key}`,
      );
      if (inner !== '') return inner;
    }
  }
  return `${path || '(value)'}: ${JSON.stringify(a)?.slice(0, 200)} vs ${JSON.stringify(b)?.slice(0, 200)}`;
}

/** Calls an env method and turns a throw or a malformed result into a message that says where. */
async function call(
  what: string,
  run: () => Promise<StepResult>,
): Promise<{ result: StepResult } | { problem: string }> {
  let raw: unknown;
  try {
    raw = await run();
  } catch (error) {
    return { problem: `${what} threw ${error instanceof Error ? `${error.name}: ${error.message}` : error}` };
  }
  const parsed = stepResultSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    return {
      problem: `${what} returned a result that does not match stepResultSchema: ${issues.join('; ')}`,
    };
  }
  return { result: raw as StepResult };
}

async function mustCall(what: string, run: () => Promise<StepResult>): Promise<StepResult> {
  const outcome = await call(what, run);
  if ('problem' in outcome) throw new EnvCheckError(outcome.problem);
  return outcome.result;
}

const ended = (result: StepResult) => result.terminated || result.truncated;

interface Transcript {
  actions: string[];
  results: StepResult[];
}

/** Plays a seeded random admissible policy for up to `steps` steps from `reset`. */
async function playRandom(
  env: TextEnv,
  reset: ResetOptions,
  steps: number,
  label: string,
): Promise<Transcript> {
  const rng = createRng(`checkEnv/${label}/${JSON.stringify(reset)}`);
  const results = [await mustCall(`${where(reset)}: reset`, () => env.reset(reset))];
  const actions: string[] = [];
  for (let step = 1; step <= steps && !ended(results.at(-1)!); step++) {
    const admissible = results.at(-1)!.admissibleActions;
    if (admissible.length === 0) break;
    const action = rng.pick(admissible);
    actions.push(action);
    results.push(await mustCall(`${where(reset, step, action)}: step`, () => env.step(action)));
  }
  return { actions, results };
}

async function replay(env: TextEnv, reset: ResetOptions, actions: readonly string[]): Promise<StepResult> {
  let result = await mustCall(`${where(reset)}: reset`, () => env.reset(reset));
  for (const [i, action] of actions.entries()) {
    result = await mustCall(`${where(reset, i + 1, action)}: step`, () => env.step(action));
  }
  return result;
}

/** Malformed or inadmissible commands every env must answer with `valid: false`. */
function badActions(admissible: readonly string[]): Array<[label: string, action: string]> {
  const known = new Set(admissible.map((a) => a.trim().toLowerCase()));
  const nearMisses = admissible
    .slice(0, 3)
    .flatMap((a) => [`${a}x`, a.slice(0, -1), `${a} ${a}`])
    .filter((a) => a.trim() !== '' && !known.has(a.trim().toLowerCase()));
  return [
    ['the empty string', ''],
    ['whitespace only', ' \t \n '],
    ['a 100 KB string', 'go '.repeat(34_000)],
    ['unicode text', 'öffne die Tür 🚪 门 → ½'],
    ['control characters', '\u0000\u0007\u001b[31mlook\u001b[0m\r\b'],
    ['a lone surrogate', '\ud800look'],
    ['an unknown command', 'xyzzy plugh'],
    ...nearMisses.map((a): [string, string] => [`the near miss ${quote(a)}`, a]),
  ];
}

/** Builds the conformance checks for the envs that `factory` creates. */
export function buildEnvChecks(factory: () => TextEnv, options: EnvCheckOptions): EnvCheck[] {
  const create = parseOrThrow(textEnvFactorySchema, factory, 'checkEnv factory');
  const opts: ResolvedOptions = parseOrThrow(envCheckOptionsSchema, options, 'checkEnv options');
  const fresh = () => create();
  const checks: EnvCheck[] = [
    {
      name: 'reset gives a valid first observation with admissible actions',
      async run() {
        const env = fresh();
        for (const reset of opts.resets) {
          const result = await mustCall(`${where(reset)}: reset`, () => env.reset(reset));
          if (ended(result))
            throw new EnvCheckError(`${where(reset)}: reset returned an episode that already ended`);
          if (result.admissibleActions.length === 0) {
            throw new EnvCheckError(`${where(reset)}: reset returned no admissible actions`);
          }
          if (result.info.won) throw new EnvCheckError(`${where(reset)}: reset reported info.won = true`);
        }
      },
    },
    {
      name:
        opts.beforeReset === 'throws'
          ? 'step before reset throws a PilotRLError'
          : 'step before reset returns valid: false',
      async run() {
        const env = fresh();
        const action = 'look';
        if (opts.beforeReset === 'throws') {
          let thrown: unknown;
          try {
            await env.step(action);
          } catch (error) {
            thrown = error;
          }
          if (!PilotRLError.isInstance(thrown)) {
            throw new EnvCheckError(
              thrown === undefined
                ? 'step() before reset() returned instead of throwing; throw an EnvError, or pass beforeReset: "invalid"'
                : `step() before reset() threw ${String(thrown)}, which is not a PilotRLError (throw core's EnvError)`,
            );
          }
        } else {
          const result = await mustCall('step() before reset()', () => env.step(action));
          if (result.info.valid) throw new EnvCheckError('step() before reset() reported info.valid = true');
        }
      },
    },
    {
      name: 'the same reset options and actions give the same episode, in fresh and reused envs',
      async run() {
        const reused = fresh();
        for (const reset of opts.resets) {
          const reference = await playRandom(fresh(), reset, opts.episodeSteps, 'determinism');
          const replays: Array<[string, Transcript]> = [
            ['a second fresh env', await playRandom(fresh(), reset, opts.episodeSteps, 'determinism')],
            [
              'an env reused after another episode',
              await playRandom(reused, reset, opts.episodeSteps, 'determinism'),
            ],
          ];
          // Two envs stepped in turn must not share state.
          const [left, right] = [fresh(), fresh()];
          const pair = await Promise.all([left.reset(reset), right.reset(reset)]);
          const interleaved: Transcript = { actions: [], results: [pair[0]] };
          for (const [i, action] of reference.actions.entries()) {
            const at = `${where(reset, i + 1, action)}: step`;
            const a = await mustCall(at, () => left.step(action));
            const b = await mustCall(at, () => right.step(action));
            interleaved.actions.push(action);
            interleaved.results.push(a);
            const difference = firstDifference(a, b);
            if (difference !== '') {
              throw new EnvCheckError(
                `${where(reset, i + 1, action)}: two envs stepped in turn diverged at ${difference}`,
              );
            }
          }
          replays.push(['two envs stepped in turn', interleaved]);
          for (const [label, transcript] of replays) {
            for (let i = 0; i < reference.results.length; i++) {
              const difference = firstDifference(reference.results[i], transcript.results[i]);
              if (difference !== '' || reference.actions[i] !== transcript.actions[i]) {
                throw new EnvCheckError(
                  `${where(reset, i, reference.actions[i - 1])}: ${label} gave a different result: ` +
                    (difference || `admissible actions led a seeded policy to "${transcript.actions[i]}"`),
                );
              }
            }
          }
        }
      },
    },
    {
      name: 'info survives a JSON round trip unchanged',
      async run() {
        const env = fresh();
        for (const reset of opts.resets) {
          const { actions, results } = await playRandom(env, reset, opts.episodeSteps, 'json');
          for (const [i, result] of results.entries()) {
            const roundTrip = JSON.parse(JSON.stringify(result.info));
            const difference = firstDifference(result.info, roundTrip);
            if (difference !== '') {
              throw new EnvCheckError(
                `${where(reset, i, actions[i - 1])}: info changed through JSON.stringify/parse at ${difference}`,
              );
            }
          }
        }
      },
    },
    {
      name: 'every admissible action is accepted (valid: true)',
      async run() {
        const env = fresh();
        for (const reset of opts.resets) {
          const { actions, results } = await playRandom(env, reset, opts.episodeSteps, 'admissible');
          const live = results.filter((r) => !ended(r)).length;
          const stride = Math.max(1, Math.ceil(live / opts.statesPerEpisode));
          for (let depth = 0; depth < live; depth += stride) {
            const admissible = results[depth]!.admissibleActions.slice(0, opts.maxActionsPerState);
            for (const action of admissible) {
              await replay(env, reset, actions.slice(0, depth));
              const result = await mustCall(`${where(reset, depth + 1, action)}: step`, () =>
                env.step(action),
              );
              if (!result.info.valid) {
                throw new EnvCheckError(
                  `${where(reset, depth + 1, action)}: the action was listed as admissible but the env ` +
                    `answered info.valid = false (observation ${quote(result.observation)})`,
                );
              }
            }
          }
        }
      },
    },
    {
      name: 'inadmissible and malformed actions give valid: false and never throw',
      async run() {
        const env = fresh();
        for (const reset of opts.resets) {
          const first = await mustCall(`${where(reset)}: reset`, () => env.reset(reset));
          for (const [label, action] of badActions(first.admissibleActions)) {
            await env.reset(reset);
            const result = await mustCall(`${where(reset, 1, action)}: step with ${label}`, () =>
              env.step(action),
            );
            if (result.info.valid || result.terminated) {
              throw new EnvCheckError(
                `${where(reset, 1, action)}: ${label} gave info.valid = ${result.info.valid}, ` +
                  `terminated = ${result.terminated}; expected valid: false and the episode to go on`,
              );
            }
            const next = result.admissibleActions[0];
            if (next === undefined) {
              throw new EnvCheckError(
                `${where(reset, 1, action)}: after ${label} no admissible actions are left`,
              );
            }
            const after = await mustCall(`${where(reset, 2, next)}: step after ${label}`, () =>
              env.step(next),
            );
            if (!after.info.valid) {
              throw new EnvCheckError(
                `${where(reset, 2, next)}: after ${label}, the admissible action was refused (valid: false)`,
              );
            }
          }
        }
      },
    },
    {
      name: `the step limit (${opts.stepLimit.maxSteps}) gives truncated: true`,
      async run() {
        const { maxSteps } = opts.stepLimit;
        const env = (opts.stepLimit.create ?? create)();
        for (let attempt = 0; attempt < 20; attempt++) {
          const reset = opts.resets[attempt % opts.resets.length]!;
          const { actions, results } = await playRandom(env, reset, maxSteps + 1, `limit/${attempt}`);
          for (const [i, result] of results.entries()) {
            if (result.truncated && i < maxSteps) {
              throw new EnvCheckError(
                `${where(reset, i, actions[i - 1])}: truncated before the step limit of ${maxSteps}`,
              );
            }
          }
          if (results.length <= maxSteps) continue;
          const atLimit = results[maxSteps]!;
          if (atLimit.terminated) continue;
          if (!atLimit.truncated) {
            throw new EnvCheckError(
              `${where(reset, maxSteps, actions[maxSteps - 1])}: step ${maxSteps} of an unfinished episode ` +
                `did not report truncated: true (stepLimit.maxSteps is ${maxSteps})`,
            );
          }
          return;
        }
        throw new EnvCheckError(
          `every random episode ended before ${maxSteps} steps; pass stepLimit.create with a smaller limit`,
        );
      },
    },
    {
      name:
        opts.afterEnd === 'invalid'
          ? 'step after the episode ended returns valid: false and keeps it ended'
          : 'step after the episode ended throws a PilotRLError',
      async run() {
        const env = (opts.stepLimit.create ?? create)();
        const reset = opts.resets[0]!;
        const { results } = await playRandom(env, reset, opts.stepLimit.maxSteps + 1, 'after-end');
        const last = results.at(-1)!;
        if (!ended(last)) {
          throw new EnvCheckError(`${where(reset)}: the episode did not end within the step limit`);
        }
        const action = results.at(-2)?.admissibleActions[0] ?? 'look';
        const what = `${where(reset, results.length, action)}: step after the episode ended`;
        if (opts.afterEnd === 'throws') {
          let thrown: unknown;
          try {
            await env.step(action);
          } catch (error) {
            thrown = error;
          }
          if (!PilotRLError.isInstance(thrown))
            throw new EnvCheckError(`${what} did not throw a PilotRLError`);
          return;
        }
        const result = await mustCall(what, () => env.step(action));
        if (result.info.valid || !ended(result) || result.reward !== 0) {
          throw new EnvCheckError(
            `${what} gave valid = ${result.info.valid}, terminated = ${result.terminated}, ` +
              `truncated = ${result.truncated}, reward = ${result.reward}; expected valid: false, ` +
              'the episode still ended, and no reward',
          );
        }
      },
    },
  ];
  const source = opts.taskSource;
  if (source !== undefined) {
    checks.push({
      name: `the oracle solves the first ${opts.tasksPerSplit} tasks of every split`,
      async run() {
        if (source.oracle === undefined) throw new EnvCheckError('taskSource has no oracle()');
        const env = fresh();
        for (const split of source.splits()) {
          const tasks = await source.tasks(split, { limit: opts.tasksPerSplit });
          if (tasks.length === 0) throw new EnvCheckError(`split "${split}" has no tasks`);
          for (const task of tasks) {
            const reset = { seed: task.seed, taskId: task.taskId };
            const solution = parseOrThrow(
              oracleSolutionSchema,
              await source.oracle(task),
              `oracle(${task.taskId})`,
            );
            let result = await mustCall(`${where(reset)}: reset`, () => env.reset(reset));
            if (
              task.description !== undefined &&
              result.info.task !== undefined &&
              task.description !== result.info.task
            ) {
              throw new EnvCheckError(
                `${where(reset)}: the task source describes the task as ${quote(task.description)} ` +
                  `but the env's info.task is ${quote(result.info.task)}`,
              );
            }
            for (const [i, action] of solution.actions.entries()) {
              const at = where(reset, i + 1, action);
              if (ended(result))
                throw new EnvCheckError(`${at}: the episode ended before the oracle finished`);
              if (!result.admissibleActions.includes(action)) {
                throw new EnvCheckError(`${at}: the oracle's action is not admissible here`);
              }
              result = await mustCall(`${at}: step`, () => env.step(action));
            }
            if (!result.terminated || !result.info.won) {
              throw new EnvCheckError(
                `${where(reset)}: after the oracle's ${solution.actions.length} actions, terminated = ` +
                  `${result.terminated} and won = ${result.info.won}; expected both true`,
              );
            }
          }
        }
      },
    });
  }
  return checks;
}

/** Runs every check and reports each one; it never throws for a failing env. */
export async function runEnvChecks(
  factory: () => TextEnv,
  options: EnvCheckOptions,
): Promise<EnvCheckResult[]> {
  const results: EnvCheckResult[] = [];
  for (const check of buildEnvChecks(factory, options)) {
    try {
      await check.run();
      results.push({ name: check.name, passed: true, problem: '' });
    } catch (error) {
      const problem = error instanceof Error ? error.message : String(error);
      results.push({ name: check.name, passed: false, problem });
    }
  }
  return results;
}
