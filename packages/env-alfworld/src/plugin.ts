// ALFWorld as a PilotRL plug-in: the built-in game generator by default; `options.dataDir` plays
// real ALFWorld games from a data directory instead, and `options.dialect` picks the grammar.
import { definePlugin, withCachedOracle } from '@pilotrl/core';
import { ALFWORLD_ENV_ID, createAlfworldEnv } from './env';
import { alfworldHindsight } from './hindsight-goal';
import { alfworldPlanSteps } from './plan-steps';
import { createAlfworldSearcher } from './searcher';
import { alfworldStateView } from './state-view';
import { createDirectoryTaskSource, createGeneratedTaskSource } from './task-source';

export const plugin = definePlugin({
  name: '@pilotrl/env-alfworld',
  envs: [
    {
      id: ALFWORLD_ENV_ID,
      description: 'ALFWorld household tasks (TextWorld games): generated, or read from a data directory',
      create(options) {
        const dialect = options.dialect === 'current' ? 'current' : 'legacy';
        const dataDir = typeof options.dataDir === 'string' ? options.dataDir : undefined;
        return {
          envId: ALFWORLD_ENV_ID,
          // Trial ids are relative to the data directory, which the env resolves them under (never outside).
          createEnv: (envOptions) =>
            createAlfworldEnv(dataDir === undefined ? envOptions : { ...envOptions, dataDir }),
          view: alfworldStateView,
          hindsight: alfworldHindsight,
          planSteps: alfworldPlanSteps,
          demonstrator: createAlfworldSearcher(() => createAlfworldEnv({ ...options, maxSteps: 100 })),
          tasks: withCachedOracle(
            dataDir === undefined
              ? createGeneratedTaskSource({ dialect })
              : createDirectoryTaskSource(dataDir, { dialect }),
          ),
        };
      },
    },
  ],
});
