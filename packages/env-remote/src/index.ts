// @pilotrl/env-remote: a TextEnv over any OpenEnv or AgentGym-dialect server.

export { agentGymIndex } from './agentgym/env';
export { defaultResetData, webSocketUrl } from './openenv/env';
export { ADMISSIBLE_KEYS, TEXT_KEYS } from './openenv/observation';
export {
  AGENTGYM_DIALECTS,
  type AgentGymConfig,
  type AgentGymDialectName,
  agentGymConfigSchema,
  type OpenEnvConfig,
  openEnvConfigSchema,
  type RemoteEnvConfig,
  type RemoteObservation,
  remoteEnvConfigSchema,
  remoteObservationSchema,
} from './options';
export { createRemoteEnv } from './remote-env';
export { type RemoteTasksOptions, remoteTasks, remoteTasksOptionsSchema } from './task-source';
