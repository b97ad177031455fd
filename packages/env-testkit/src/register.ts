// The toy envs by registry id, and the one call that registers them (importing registers nothing).
import { envRegistry, type TextEnv } from '@pilotrl/core';
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

/**
 * Registers the toy envs in core's `envRegistry` under `testkit/corridor`, `testkit/key-door` and
 * `testkit/recipe`. Calling it again is harmless; an id taken by something else is an error.
 */
export function registerTestkitEnvs(): void {
  for (const env of testkitEnvs) {
    if (envRegistry.has(env.envId) && envRegistry.get(env.envId) === env.create) continue;
    envRegistry.register(env.envId, env.create as (config?: unknown) => TextEnv);
  }
}
