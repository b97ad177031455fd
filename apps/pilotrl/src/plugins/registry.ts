// What a curriculum can name, filled from plug-ins: its envs (`env.id`; each a factory for a
// provider: fresh envs, the task source with its splits and oracle, and what else the env offers)
// here, its advantage estimators (`estimator:`) in @pilotrl/optim's registry. The built-in plug-ins
// (`builtin.ts`) are registered at load, others by name (`load.ts`: `--plugin`, or `plugins:`).
import {
  createEnvProvider,
  createRegistry,
  type EnvProvider,
  InvalidArgumentError,
  type OracleSolution,
  type PilotrlPlugin,
  type TaskRef,
  type TaskSource,
  UnsolvableTaskError,
} from '@pilotrl/core';
import { advantageEstimators } from '@pilotrl/optim';
import { builtinPlugins } from './builtin';

export type { EnvProvider };

export type EnvProviderFactory = (options: Record<string, unknown>) => EnvProvider;

/** How to add an env, for every error about an unknown one. */
export const ADD_ENV_HINT =
  'An env package published on its own: name it with --plugin <package> or under plugins: in the config. ' +
  'A new env in this repo: pnpm new:env <name> creates and registers one';

export const envProviders = createRegistry<EnvProviderFactory>('environment', { unknownHint: ADD_ENV_HINT });

/** Which plug-in registered each id, by kind, for errors about two plug-ins offering one id. */
const offeredBy = { env: new Map<string, string>(), estimator: new Map<string, string>() };

/**
 * Registers the envs and estimators of `plugin`. Loading the same plug-in again changes nothing;
 * another plug-in offering an id already taken is refused, naming both, before anything is registered.
 */
export function registerPlugin(plugin: PilotrlPlugin): void {
  const envs = plugin.envs ?? [];
  const estimators = plugin.estimators ?? [];
  const taken = (kind: 'env' | 'estimator', id: string) => {
    const owner =
      offeredBy[kind].get(id) ??
      (kind === 'estimator' && advantageEstimators.has(id) ? '@pilotrl/optim' : undefined);
    return owner === plugin.name ? undefined : owner;
  };
  for (const [kind, ids] of [
    ['env', envs.map((env) => env.id)],
    ['estimator', estimators.map((estimator) => estimator.id)],
  ] as const) {
    for (const id of ids) {
      const owner = taken(kind, id);
      if (owner !== undefined) {
        throw new InvalidArgumentError(
          `plug-in "${plugin.name}" offers ${kind} "${id}", which "${owner}" registered already; the ids of loaded ${kind}s must differ`,
        );
      }
    }
  }
  for (const descriptor of envs) {
    if (offeredBy.env.has(descriptor.id)) continue;
    envProviders.register(descriptor.id, (options) => createEnvProvider(descriptor, options, plugin.name));
    offeredBy.env.set(descriptor.id, plugin.name);
  }
  for (const descriptor of estimators) {
    if (offeredBy.estimator.has(descriptor.id)) continue;
    advantageEstimators.register(descriptor.id, descriptor);
    offeredBy.estimator.set(descriptor.id, plugin.name);
  }
}

for (const plugin of builtinPlugins) registerPlugin(plugin);

/** The oracle's solution of `task`, or undefined when the oracle proves the task unsolvable. */
export async function oracleSolution(tasks: TaskSource, task: TaskRef): Promise<OracleSolution | undefined> {
  try {
    return await tasks.oracle!(task);
  } catch (error) {
    if (UnsolvableTaskError.isInstance(error)) return undefined;
    throw error;
  }
}
