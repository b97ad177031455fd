// Wordle as a PilotRL plug-in: LMRL-Gym's game; `options.vocabulary` and `options.secret` pick the
// word list and the rules (they go to the task source, all options to the env).
import { definePlugin, optionsKnownTo, withCachedOracle } from '@pilotrl/core';
import { createWordleEnv } from './env';
import { createWordleTasks, WORDLE_ENV_ID, wordleTaskConfigSchema } from './tasks';

export const plugin = definePlugin({
  name: '@pilotrl/env-wordle',
  envs: [
    {
      id: WORDLE_ENV_ID,
      description: "LMRL-Gym's Wordle: guess the five-letter word in six tries",
      create: (options) => ({
        envId: WORDLE_ENV_ID,
        createEnv: (envOptions) => createWordleEnv(envOptions),
        tasks: withCachedOracle(createWordleTasks(optionsKnownTo(wordleTaskConfigSchema, options))),
      }),
    },
  ],
});
