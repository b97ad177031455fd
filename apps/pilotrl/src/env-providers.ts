// Envs a curriculum can name: a factory for fresh envs plus the task source with its splits and
// oracle. Core's envRegistry holds factories only; training also needs tasks, so the app keeps
// this registry of providers, pre-filled with the built-in envs.
import { createRegistry, type TaskSource, type TextEnv } from '@pilotrl/core';
import { testkitEnvs } from '@pilotrl/env-testkit';

export interface EnvProvider {
  readonly envId: string;
  /** A fresh env; `options` are the config's env options plus `maxSteps`. */
  createEnv(options: Record<string, unknown>): TextEnv;
  readonly tasks: TaskSource;
}

export type EnvProviderFactory = (options: Record<string, unknown>) => EnvProvider;

export const envProviders = createRegistry<EnvProviderFactory>('environment');

for (const env of testkitEnvs) {
  envProviders.register(env.envId, () => ({
    envId: env.envId,
    createEnv: (options) => env.create(options as Parameters<typeof env.create>[0]),
    tasks: env.tasks,
  }));
}
