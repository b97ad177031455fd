// BabyAI as a PilotRL plug-in: AgentGym's text version on Minigrid start states (the shipped splits).
import { definePlugin, optionsKnownTo, withCachedOracle } from '@pilotrl/core';
import { babyaiConfigSchema, createBabyaiEnv } from './env';
import { babyaiPlanSteps } from './plan-steps';
import { BABYAI_ENV_ID, createBabyaiTasks } from './tasks';

/** The env options the oracle plays by. */
const oracleOptionsSchema = babyaiConfigSchema.pick({ commands: true, maxSteps: true });

export const plugin = definePlugin({
  name: '@pilotrl/env-babyai',
  envs: [
    {
      id: BABYAI_ENV_ID,
      description: "BabyAI grid levels as text, AgentGym's version on Minigrid start states",
      create: (options) => ({
        envId: BABYAI_ENV_ID,
        createEnv: (options) => createBabyaiEnv(options),
        planSteps: babyaiPlanSteps,
        tasks: withCachedOracle(createBabyaiTasks(optionsKnownTo(oracleOptionsSchema, options))),
      }),
    },
  ],
});
