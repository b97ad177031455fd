// The one env registry: the envs a curriculum can name (`env.id` in a config), each a factory for
// a provider (fresh envs, the task source with its splits and oracle, and what else the env offers).
// Filled from plug-ins: the built-in ones (`plugins/builtin.ts`) at load, others by name
// (`plugins/load.ts`: `--plugin`, or `plugins:` in a config).
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
import { builtinPlugins } from './plugins/builtin';

export type { EnvProvider };

export type EnvProviderFactory = (options: Record<string, unknown>) => EnvProvider;

/** How to add an env, for every error about an unknown one. */
export const ADD_ENV_HINT =
  'An env package published on its own: name it with --plugin <package> or under plugins: in the config. ' +
  'A new env in this repo: pnpm new:env <name> creates and registers one';

export const envProviders = createRegistry<EnvProviderFactory>('environment', { unknownHint: ADD_ENV_HINT });

/** Which plug-in registered each env id, for errors about two plug-ins offering one id. */
const offeredBy = new Map<string, string>();

/**
 * Registers the envs of `plugin`. Loading the same plug-in again changes nothing; another plug-in
 * offering an id already taken is refused, naming both.
 */
export function registerPlugin(plugin: PilotrlPlugin): void {
  for (const descriptor of plugin.envs) {
    const owner = offeredBy.get(descriptor.id);
    if (owner === plugin.name) continue;
    if (owner !== undefined) {
      throw new InvalidArgumentError(
        `plug-in "${plugin.name}" offers env "${descriptor.id}", which "${owner}" registered already; the ids of loaded envs must differ`,
      );
    }
  }
  for (const descriptor of plugin.envs) {
    if (offeredBy.has(descriptor.id)) continue;
    envProviders.register(descriptor.id, (options) => createEnvProvider(descriptor, options, plugin.name));
    offeredBy.set(descriptor.id, plugin.name);
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
