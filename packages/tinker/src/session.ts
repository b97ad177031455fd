// A Tinker session: the SDK's handshake (`client/config`), the server's model list, `create_session`,
// and a heartbeat every `heartbeatMs` that keeps the server from dropping the session's models
// (SkyRL frees them after 300 s without one). `close()` stops the heartbeat.
import { InvalidArgumentError, parseOrThrow } from '@pilotrl/core';
import type { ApiClient } from './api-client';
import { clientConfigSchema, createSessionSchema, serverCapabilitiesSchema } from './wire/json-schemas';

/** Reported as the SDK version: the Tinker API version this client speaks. */
export const SDK_VERSION = '0.25.0';

export interface TinkerSession {
  readonly id: string;
  /** The error of the last heartbeat, if it failed (the next one may succeed). */
  readonly lastHeartbeatError: unknown;
  close(): void;
}

export async function openSession(
  api: ApiClient,
  options: { baseModel: string; heartbeatMs: number; userMetadata?: Record<string, string> },
): Promise<TinkerSession> {
  parseOrThrow(clientConfigSchema, await api.postJson('/api/v1/client/config', {}), 'client/config answer');
  const capabilities = parseOrThrow(
    serverCapabilitiesSchema,
    await api.getJson('/api/v1/get_server_capabilities'),
    'get_server_capabilities answer',
  );
  const models = capabilities.supported_models.map((model) => model.model_name ?? '');
  if (!models.includes(options.baseModel)) {
    throw new InvalidArgumentError(
      `The server does not serve base model "${options.baseModel}"; it serves: ${models.map((m) => `"${m}"`).join(', ')}`,
    );
  }
  const created = parseOrThrow(
    createSessionSchema,
    await api.postJson('/api/v1/create_session', {
      tags: ['pilotrl'],
      user_metadata: options.userMetadata ?? null,
      sdk_version: SDK_VERSION,
      type: 'create_session',
    }),
    'create_session answer',
  );
  if (created.error_message) throw new InvalidArgumentError(`create_session: ${created.error_message}`);
  let lastHeartbeatError: unknown;
  const timer = setInterval(() => {
    api
      .postJson('/api/v1/session_heartbeat', { session_id: created.session_id, type: 'session_heartbeat' })
      .then(
        () => {
          lastHeartbeatError = undefined;
        },
        (error: unknown) => {
          lastHeartbeatError = error;
        },
      );
  }, options.heartbeatMs);
  // The heartbeat alone does not keep the process alive.
  timer.unref();
  return {
    id: created.session_id,
    get lastHeartbeatError() {
      return lastHeartbeatError;
    },
    close: () => clearInterval(timer),
  };
}
