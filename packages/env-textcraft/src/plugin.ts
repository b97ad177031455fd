// TextCraft as a PilotRL plug-in: the built-in generated recipe world, or `options.recipesDir`
// (Minecraft's recipe files); the world options go to the task source, all options to the env.
import { definePlugin, optionsKnownTo, withCachedOracle } from '@pilotrl/core';
import { createTextcraftEnv } from './env';
import { textcraftPlanSteps } from './plan-steps';
import { TEXTCRAFT_ENV_ID, worldOptionsSchema } from './setup';
import { createTextcraftTasks } from './tasks';

export const plugin = definePlugin({
  name: '@pilotrl/env-textcraft',
  envs: [
    {
      id: TEXTCRAFT_ENV_ID,
      description: 'TextCraft: craft a Minecraft item from its recipes',
      create: (options) => ({
        envId: TEXTCRAFT_ENV_ID,
        createEnv: (envOptions) => createTextcraftEnv(envOptions),
        planSteps: textcraftPlanSteps,
        tasks: withCachedOracle(createTextcraftTasks(optionsKnownTo(worldOptionsSchema, options))),
      }),
    },
  ],
});
