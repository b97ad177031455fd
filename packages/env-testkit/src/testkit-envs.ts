// The toy envs by id, each with its factory and task source, for code that picks an env by name
// (the `pilotrl` app's env providers, benchmarks, suites that run every toy env).
import { definePlugin, type TextEnv } from '@pilotrl/core';
import { CORRIDOR_ENV_ID, corridorTasks, createCorridorEnv } from './corridor';
import { createKeyDoorEnv, KEY_DOOR_ENV_ID, keyDoorTasks } from './key-door';
import { createRecipeEnv, RECIPE_ENV_ID, recipeTasks } from './recipe';
import type { ToyEnvConfig, ToyTaskSource } from './toy-game';

export interface TestkitEnv {
  readonly envId: string;
  readonly create: (config?: ToyEnvConfig) => TextEnv;
  readonly tasks: ToyTaskSource;
}

/** The three toy envs, each with its task source (splits `train`, `valid_seen`, `valid_unseen`). */
export const testkitEnvs: readonly TestkitEnv[] = [
  { envId: CORRIDOR_ENV_ID, create: createCorridorEnv, tasks: corridorTasks },
  { envId: KEY_DOOR_ENV_ID, create: createKeyDoorEnv, tasks: keyDoorTasks },
  { envId: RECIPE_ENV_ID, create: createRecipeEnv, tasks: recipeTasks },
];

/** The toy envs as a plug-in, for the `pilotrl` app and anything else that loads envs by name. */
export const plugin = definePlugin({
  name: '@pilotrl/env-testkit',
  envs: testkitEnvs.map((env) => ({
    id: env.envId,
    description: `the toy env "${env.envId}" of @pilotrl/env-testkit`,
    create: () => ({
      envId: env.envId,
      createEnv: (options: Record<string, unknown>) => env.create(options as ToyEnvConfig),
      tasks: env.tasks,
    }),
  })),
});
