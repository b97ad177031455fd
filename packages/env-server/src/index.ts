// @pilotrl/env-server: any TextEnv served over OpenEnv and AgentGym's HTTP dialects.

export { ALFWORLD_GAMES, ALFWORLD_TRAIN_GAMES } from './agentgym/alfworld';
export type { AgentGymDialect, DialectSession } from './agentgym/dialect';
export { agentgymDialects } from './agentgym/dialects';
export { AGENTGYM_STEP_LIMIT } from './agentgym/limits';
export {
  openEnvActionSchema,
  openEnvObservationSchema,
  openEnvResetSchema,
  openEnvSchemas,
  openEnvStateSchema,
} from './openenv/wire';
export { type EnvServerLimits, envServerLimitsSchema } from './options';
export { envReward, type ServedEnv, type StepReward, type StepRewardInput } from './served-env';
export {
  createEnvServer,
  type EnvServer,
  type EnvServerMetrics,
  type EnvServerOptions,
} from './server';
export { SessionBusyError, SessionLimitError } from './sessions';
