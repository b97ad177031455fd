// `createRemoteEnv`: a TextEnv played on a server, over OpenEnv's WebSocket or an AgentGym dialect.
import { parseOrThrow, type TextEnv } from '@pilotrl/core';
import { createAgentGymEnv } from './agentgym/env';
import { createOpenEnvEnv } from './openenv/env';
import { type RemoteEnvConfig, remoteEnvConfigSchema } from './options';

/**
 * A TextEnv whose episodes run on a server: `{protocol: 'openenv', url}` for any OpenEnv server
 * (one WebSocket, one server-side env, reused across episodes), `{protocol: 'agentgym', url,
 * dialect}` for an AgentGym env server (one session id, reused across episodes). Nothing is
 * contacted until the first `reset`. The config is validated here; an invalid one is an
 * `InvalidArgumentError` listing every problem.
 */
export function createRemoteEnv(config: RemoteEnvConfig): TextEnv {
  const resolved = parseOrThrow(remoteEnvConfigSchema, config, 'remote env config');
  return resolved.protocol === 'openenv' ? createOpenEnvEnv(resolved) : createAgentGymEnv(resolved);
}
