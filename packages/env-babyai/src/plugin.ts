// BabyAI as a PilotRL plug-in: AgentGym's text version on Minigrid start states (the shipped splits).
import { definePlugin, withCachedOracle } from '@pilotrl/core';
import { createBabyaiEnv } from './env';
import { babyaiPlanSteps } from './plan-steps';
import { BABYAI_ENV_ID, babyaiTasks } from './tasks';

export const plugin = definePlugin({
  name: '@pilotrl/env-babyai',
  envs: [
    {
      id: BABYAI_ENV_ID,
      description: "BabyAI grid levels as text, AgentGym's version on Minigrid start states",
      create: () => ({
        envId: BABYAI_ENV_ID,
        createEnv: (options) => createBabyaiEnv(options),
        planSteps: babyaiPlanSteps,
        tasks: withCachedOracle(babyaiTasks),
      }),
    },
  ],
});
