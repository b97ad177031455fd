// Plug-ins: what a package hands the `pilotrl` app so that a curriculum can name its envs,
// advantage estimators, rewards, plan judges and policy backends. A package exports one `plugin` made with `definePlugin`; the app registers
// the built-in ones and loads others by name (`--plugin <package>`, or `plugins:` in a config), so
// an env or estimator published on its own is used without editing the app.
import { z } from 'zod';
import type { EstimatorDescriptor } from './advantage-estimator';
import type { TextEnv } from './env';
import type {
  Demonstrator,
  EpisodeViewFactory,
  HindsightRelabeller,
  PlanStepVocabulary,
} from './env-capabilities';
import { InvalidArgumentError, UnsolvableTaskError } from './errors';
import type { PolicyBackendDescriptor } from './policy-backend';
import type { JudgeDescriptor, RewardDescriptor } from './reward';
import type { OracleSolution, TaskSource } from './task';

/** What a curriculum needs of one env: fresh envs, its tasks, and what else the env offers. */
export interface EnvProvider {
  readonly envId: string;
  /** A fresh env; `options` are the config's env options plus `maxSteps`. */
  createEnv(options: Record<string, unknown>): TextEnv;
  readonly tasks: TaskSource;
  /** The env's compact state view (`agent.prompt: view`); envs without one show goal + observation. */
  readonly view?: EpisodeViewFactory;
  /** Names the goal a lost episode reached, for expert iteration's hindsight relabelling. */
  readonly hindsight?: HindsightRelabeller;
  /** The env's plan-step vocabulary (`agent.plan: steps`); it needs `planOf` to give oracle plans in it. */
  readonly planSteps?: PlanStepVocabulary;
  /** Plays oracle solutions from what an agent sees (`sft.demonstrator: searching`). */
  readonly demonstrator?: Demonstrator;
}

/** One env a plug-in offers: its id (`env.id` in a config) and the provider for a config's options. */
export interface EnvDescriptor {
  /** Letters, digits and `. _ + / -`; the id a config names, unique among loaded envs. */
  readonly id: string;
  /** One sentence for listings and errors. */
  readonly description?: string;
  /**
   * The provider for `options` (the config's `env.options` with its step limit as `maxSteps`, the
   * options its envs are created with); called once per run and env.
   */
  create(options: Record<string, unknown>): EnvProvider;
}

/** What a plug-in module exports as `plugin`: envs, advantage estimators, rewards, judges, policy backends, in any mix. */
export interface PilotrlPlugin {
  /** Who offers it, usually the package name; named in errors. */
  readonly name: string;
  readonly envs?: readonly EnvDescriptor[];
  readonly estimators?: readonly EstimatorDescriptor[];
  readonly rewards?: readonly RewardDescriptor[];
  readonly judges?: readonly JudgeDescriptor[];
  /** Where a run's weights live and train (`policy.kind`). */
  readonly policyBackends?: readonly PolicyBackendDescriptor[];
}

/** A plug-in as `definePlugin` returns it: every list present. */
export interface DefinedPlugin extends PilotrlPlugin {
  readonly envs: readonly EnvDescriptor[];
  readonly estimators: readonly EstimatorDescriptor[];
  readonly rewards: readonly RewardDescriptor[];
  readonly judges: readonly JudgeDescriptor[];
  readonly policyBackends: readonly PolicyBackendDescriptor[];
}

const registryId = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9._+/-]*$/i,
    'must be letters, digits and . _ + / -, starting with one of the first two',
  );
const functionValue = z.custom<(...args: never[]) => unknown>((value) => typeof value === 'function', {
  error: 'must be a function',
});
const pluginSchema = z
  .object({
    name: z
      .string({ error: 'must name the plug-in (its package name)' })
      .min(1, 'must name the plug-in (its package name)'),
    envs: z
      .array(
        z.object({ id: registryId, description: z.string().optional(), create: functionValue }),
        'must be a list of env descriptors ({ id, create })',
      )
      .optional(),
    estimators: z
      .array(
        z.object({
          id: registryId,
          description: z.string().optional(),
          optionsSchema: z.custom<z.ZodType>((value) => value instanceof Object && 'safeParse' in value, {
            error: 'must be a zod schema of the options',
          }),
          requires: z.array(z.enum(['groups', 'valueHead'])),
          create: functionValue,
        }),
        'must be a list of estimator descriptors ({ id, optionsSchema, requires, create })',
      )
      .optional(),
    rewards: z
      .array(
        z.object({
          id: registryId,
          description: z.string().optional(),
          requires: z.array(z.enum(['plans', 'planSteps'])),
          stageKinds: z.array(z.string()).optional(),
          create: functionValue,
        }),
        'must be a list of reward descriptors ({ id, requires, create })',
      )
      .optional(),
    judges: z
      .array(
        z.object({
          id: registryId,
          description: z.string().optional(),
          requires: z.array(z.enum(['llm'])),
          create: functionValue,
        }),
        'must be a list of judge descriptors ({ id, requires, create })',
      )
      .optional(),
    policyBackends: z
      .array(
        z.object({
          id: registryId,
          description: z.string().optional(),
          title: z.string().min(1),
          engine: z.string().min(1),
          trainsOn: z.string().min(1),
          optionsSchema: z.custom<z.ZodObject>((value) => value instanceof Object && 'shape' in value, {
            error: 'must be a zod object schema of its own keys',
          }),
          offers: z.object({
            choices: z.boolean(),
            valueHead: z.boolean(),
            entropy: z.boolean(),
            localTraining: z.boolean(),
            backendChoice: z.boolean(),
          }),
          contextLength: functionValue,
          start: functionValue,
          create: functionValue,
          load: functionValue,
        }),
        'must be a list of policy backend descriptors ({ id, title, engine, trainsOn, optionsSchema, offers, contextLength, start, create, load })',
      )
      .optional(),
  })
  .refine(
    (plugin) =>
      (plugin.envs?.length ?? 0) +
        (plugin.estimators?.length ?? 0) +
        (plugin.rewards?.length ?? 0) +
        (plugin.judges?.length ?? 0) +
        (plugin.policyBackends?.length ?? 0) >
      0,
    { error: 'offers nothing: give envs, estimators, rewards, judges or policy backends', path: ['envs'] },
  );

const envProviderSchema = z.object({
  envId: z.string().min(1),
  createEnv: functionValue,
  tasks: z.object({ envId: z.string(), splits: functionValue, count: functionValue, tasks: functionValue }),
});

/** The issues of `error` as `where: message` parts, one sentence. */
function issueList(error: z.ZodError, prefix: string): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${[prefix, ...issue.path].join('.')} ${issue.message}`)
    .join('; ');
}

/**
 * Checks a plug-in's shape and returns it frozen, every list present. Throws an `InvalidArgumentError` that names the
 * field which is wrong, or two envs sharing an id.
 */
export function definePlugin(plugin: PilotrlPlugin): DefinedPlugin {
  const parsed = pluginSchema.safeParse(plugin);
  if (!parsed.success) {
    const name = typeof (plugin as { name?: unknown })?.name === 'string' ? ` "${plugin.name}"` : '';
    throw new InvalidArgumentError(
      `plug-in${name} is not a PilotRL plug-in: ${issueList(parsed.error, 'plugin')}`,
    );
  }
  const envs = plugin.envs ?? [];
  const estimators = plugin.estimators ?? [];
  const rewards = plugin.rewards ?? [];
  const judges = plugin.judges ?? [];
  const policyBackends = plugin.policyBackends ?? [];
  for (const [kind, ids] of [
    ['env', envs.map((env) => env.id)],
    ['estimator', estimators.map((estimator) => estimator.id)],
    ['reward', rewards.map((reward) => reward.id)],
    ['judge', judges.map((judge) => judge.id)],
    ['policy backend', policyBackends.map((backend) => backend.id)],
  ] as const) {
    const repeated = ids.find((id, index) => ids.indexOf(id) !== index);
    if (repeated !== undefined) {
      throw new InvalidArgumentError(`plug-in "${plugin.name}" offers ${kind} "${repeated}" twice`);
    }
  }
  return Object.freeze({
    name: plugin.name,
    envs: Object.freeze([...envs]),
    estimators: Object.freeze([...estimators]),
    rewards: Object.freeze([...rewards]),
    judges: Object.freeze([...judges]),
    policyBackends: Object.freeze([...policyBackends]),
  });
}

/**
 * The provider `descriptor` creates for `options`, checked: an env provider whose `envId` is the
 * descriptor's id, with `createEnv` and a task source. The error names the plug-in and the env.
 */
export function createEnvProvider(
  descriptor: EnvDescriptor,
  options: Record<string, unknown>,
  pluginName = 'plug-in',
): EnvProvider {
  const provider = descriptor.create(options);
  const where = `${pluginName}: env "${descriptor.id}"`;
  const parsed = envProviderSchema.safeParse(provider);
  if (!parsed.success) {
    throw new InvalidArgumentError(
      `${where}: create() must return an EnvProvider ({ envId, createEnv, tasks: { envId, splits, count, tasks } }): ${issueList(parsed.error, 'provider')}`,
    );
  }
  if (provider.envId !== descriptor.id) {
    throw new InvalidArgumentError(
      `${where}: create() returned a provider for env "${provider.envId}"; its envId must be "${descriptor.id}"`,
    );
  }
  return provider;
}

/**
 * The same task source with its oracle memoised per task: an oracle may be a planner (slow on
 * ALFWorld) and a run asks it for the same tasks again (demonstrations, stage-1 plans, judges).
 */
export function withCachedOracle(tasks: TaskSource): TaskSource {
  const oracle = tasks.oracle?.bind(tasks);
  if (oracle === undefined) return tasks;
  const cache = new Map<string, Promise<OracleSolution>>();
  return {
    envId: tasks.envId,
    splits: () => tasks.splits(),
    count: (split) => tasks.count(split),
    tasks: (split, range) => tasks.tasks(split, range),
    oracle(task) {
      const key = `${task.split}/${task.taskId}/${task.seed}`;
      let solution = cache.get(key);
      if (solution === undefined) {
        solution = oracle(task);
        cache.set(key, solution);
        // A task proved unsolvable stays so; any other failure is worth another try.
        solution.catch((error: unknown) => {
          if (!UnsolvableTaskError.isInstance(error)) cache.delete(key);
        });
      }
      return solution;
    },
  };
}

/** The entries of `options` whose keys an object schema (one with a `shape`) knows. */
export function optionsKnownTo(
  schema: { readonly shape: object },
  options: Record<string, unknown>,
): Record<string, unknown> {
  return Object.fromEntries(Object.entries(options).filter(([key]) => Object.hasOwn(schema.shape, key)));
}
