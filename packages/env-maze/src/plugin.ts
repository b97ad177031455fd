// Maze as a PilotRL plug-in: LMRL-Gym's one layout, its splits the start positions.
import { definePlugin } from '@pilotrl/core';
import { createMazeEnv } from './env';
import { mazePlanSteps } from './plan-steps';
import { MAZE_ENV_ID, mazeTasks } from './tasks';

export const plugin = definePlugin({
  name: '@pilotrl/env-maze',
  envs: [
    {
      id: MAZE_ENV_ID,
      description: "LMRL-Gym's maze: walk to the goal from a start position",
      create: () => ({
        envId: MAZE_ENV_ID,
        createEnv: (options) => createMazeEnv(options),
        planSteps: mazePlanSteps,
        tasks: mazeTasks,
      }),
    },
  ],
});
