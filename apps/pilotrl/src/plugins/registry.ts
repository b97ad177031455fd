// What a curriculum can name, filled from plug-ins: its envs (`env.id`; each a factory for a
// provider: fresh envs, the task source with its splits and oracle, and what else the env offers)
// here, its advantage estimators (`estimator:`) in @pilotrl/optim's registry, its rewards
// (`rewards:`) and judges in @pilotrl/rewards' and its policy backends (`policy.kind`) in
// `policies/registry.ts`. The built-in plug-ins
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
import { judgeRegistry, rewardRegistry } from '@pilotrl/rewards';
import { BUILTIN_POLICY_BACKENDS, policyBackends } from '../policies/registry';
import { builtinPlugins } from './builtin';

export type { EnvProvider };

export type EnvProviderFactory = (options: Record<string, unknown>) => EnvProvider;

/** How to add an env, for every error about an unknown one. */
export const ADD_ENV_HINT =
  'An env package published on its own: name it with --plugin <package> or under plugins: in the config. ' +
  'A new env in this repo: pnpm new:env <name> creates and registers one';

export const envProviders = createRegistry<EnvProviderFactory>('environment', { unknownHint: ADD_ENV_HINT });

/** Which plug-in registered each id, by kind, for errors about two plug-ins offering one id. */
const offeredBy = {
  env: new Map<string, string>(),
  estimator: new Map<string, string>(),
  reward: new Map<string, string>(),
  judge: new Map<string, string>(),
  'policy backend': new Map<string, string>(),
};
type Kind = keyof typeof offeredBy;

/**
 * Each kind a plug-in offers: its descriptors in `plugin`, the package whose registry already holds
 * the built-in ones, and how one is registered.
 */
const kinds: {
  [K in Kind]: {
    of: (plugin: PilotrlPlugin) => readonly { id: string }[];
    builtinIn?: { name: string; has: (id: string) => boolean };
    register: (plugin: PilotrlPlugin, index: number) => void;
  };
} = {
  env: {
    of: (plugin) => plugin.envs ?? [],
    register: (plugin, index) => {
      const descriptor = plugin.envs![index]!;
      envProviders.register(descriptor.id, (options) => createEnvProvider(descriptor, options, plugin.name));
    },
  },
  estimator: {
    of: (plugin) => plugin.estimators ?? [],
    builtinIn: { name: '@pilotrl/optim', has: (id) => advantageEstimators.has(id) },
    register: (plugin, index) => {
      const descriptor = plugin.estimators![index]!;
      advantageEstimators.register(descriptor.id, descriptor);
    },
  },
  reward: {
    of: (plugin) => plugin.rewards ?? [],
    builtinIn: { name: '@pilotrl/rewards', has: (id) => rewardRegistry.has(id) },
    register: (plugin, index) => {
      const descriptor = plugin.rewards![index]!;
      rewardRegistry.register(descriptor.id, descriptor);
    },
  },
  judge: {
    of: (plugin) => plugin.judges ?? [],
    builtinIn: { name: '@pilotrl/rewards', has: (id) => judgeRegistry.has(id) },
    register: (plugin, index) => {
      const descriptor = plugin.judges![index]!;
      judgeRegistry.register(descriptor.id, descriptor);
    },
  },
  'policy backend': {
    of: (plugin) => plugin.policyBackends ?? [],
    builtinIn: { name: BUILTIN_POLICY_BACKENDS, has: (id) => policyBackends.has(id) },
    register: (plugin, index) => {
      const descriptor = plugin.policyBackends![index]!;
      policyBackends.register(descriptor.id, descriptor);
    },
  },
};

/**
 * Registers the envs, estimators, rewards, judges and policy backends of `plugin`. Loading the same plug-in again changes
 * nothing; another plug-in offering an id already taken is refused, naming both, before anything
 * is registered.
 */
export function registerPlugin(plugin: PilotrlPlugin): void {
  for (const [kind, { of, builtinIn }] of Object.entries(kinds) as [Kind, (typeof kinds)[Kind]][]) {
    for (const { id } of of(plugin)) {
      const owner = offeredBy[kind].get(id) ?? (builtinIn?.has(id) ? builtinIn.name : undefined);
      if (owner !== undefined && owner !== plugin.name) {
        throw new InvalidArgumentError(
          `plug-in "${plugin.name}" offers ${kind} "${id}", which "${owner}" registered already; the ids of loaded ${kind}s must differ`,
        );
      }
    }
  }
  for (const [kind, { of, register }] of Object.entries(kinds) as [Kind, (typeof kinds)[Kind]][]) {
    of(plugin).forEach(({ id }, index) => {
      if (offeredBy[kind].has(id)) return;
      register(plugin, index);
      offeredBy[kind].set(id, plugin.name);
    });
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
