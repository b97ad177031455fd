// A TextEnv over an OpenEnv server's WebSocket: one connection holds one server-side env, reused
// from episode to episode. A connection that dropped between episodes is opened again at the next
// reset (with bounded retries); one that drops mid-episode loses the episode, which the next step
// says, and the reset after it reconnects.
import {
  EnvError,
  parseOrThrow,
  type ResetOptions,
  resetOptionsSchema,
  type StepResult,
  type TextEnv,
} from '@pilotrl/core';
import { oneCallAtATime, RemoteEpisode } from '../episode';
import type { ResolvedOpenEnvConfig } from '../options';
import { withConnectRetries } from '../retry';
import { readObservation } from './observation';
import { describeServerError, OpenEnvSocket, type ServerMessage } from './socket';

/** `http://h:p/x` → `ws://h:p/x/ws`; a `ws://` or `wss://` URL is used as given. */
export function webSocketUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.protocol === 'ws:' || parsed.protocol === 'wss:') return parsed.href;
  parsed.protocol = parsed.protocol === 'https:' ? 'wss:' : 'ws:';
  parsed.pathname = `${parsed.pathname.replace(/\/+$/, '')}/ws`;
  return parsed.href;
}

/** What a reset sends by default: `{seed}`, plus `task_id` for a named task. */
export const defaultResetData = (options: ResetOptions): Record<string, unknown> => ({
  seed: options.seed,
  ...(options.taskId === undefined ? {} : { task_id: options.taskId }),
});

export function createOpenEnvEnv(config: ResolvedOpenEnvConfig): TextEnv {
  const envId = config.envId ?? 'openenv';
  const url = webSocketUrl(config.url);
  const episode = new RemoteEpisode(envId, config.maxSteps);
  const resetData = config.resetData ?? defaultResetData;
  const actionOf =
    typeof config.action === 'function'
      ? config.action
      : (command: string) => ({ [config.action as string]: command });
  let socket: OpenEnvSocket | undefined;

  const connect = () =>
    withConnectRetries({ ...config, url }, `${envId} (OpenEnv)`, () =>
      OpenEnvSocket.open({
        url,
        connectTimeoutMs: config.connectTimeoutMs,
        maxMessageBytes: config.maxMessageBytes,
      }),
    );

  /** The reply's observation data, or an EnvError for an error reply or a reply of another type. */
  const observationData = (reply: ServerMessage, what: string): unknown => {
    if (reply.type === 'observation') return reply.data;
    if (reply.type === 'error') {
      throw new EnvError(
        `${url}: the server answered ${what} with an error: ${describeServerError(reply.data)}`,
      );
    }
    throw new EnvError(
      `${url}: the server answered ${what} with a "${reply.type}" message; OpenEnv answers with "observation" or "error"`,
    );
  };

  /** One call at a time: a second call while one waits would take the first one's reply. */
  const exclusive = oneCallAtATime(envId);

  return {
    envId,
    reset(options: ResetOptions): Promise<StepResult> {
      return exclusive('reset()', async () => {
        const parsed = parseOrThrow(resetOptionsSchema, options, `${envId} reset options`);
        const message = { type: 'reset', data: resetData(parsed) };
        episode.lose('the last reset() failed');
        const reused = socket?.open === true;
        if (!reused) socket = await connect();
        let reply: ServerMessage;
        try {
          reply = await socket!.request(message, 'reset', config.requestTimeoutMs);
        } catch (error) {
          // A kept connection the server closed while idle: connect again once and resend.
          if (!reused || socket!.open || !EnvError.isInstance(error)) throw error;
          socket = await connect();
          reply = await socket.request(message, 'reset', config.requestTimeoutMs);
        }
        return episode.begin(readObservation(config, observationData(reply, 'reset'), 'reset'));
      });
    },
    step(action: string): Promise<StepResult> {
      return exclusive('step()', async () => {
        const over = episode.check();
        if (over !== undefined) return over;
        const command = typeof action === 'string' ? action : '';
        const current = socket;
        if (current === undefined || !current.open) {
          throw episode.lost(current?.problem ?? 'the connection is closed', undefined);
        }
        try {
          const reply = await current.request(
            { type: 'step', data: actionOf(command) },
            'step',
            config.requestTimeoutMs,
          );
          return episode.advance(command, readObservation(config, observationData(reply, 'step'), 'step'));
        } catch (error) {
          // Whatever failed (the connection, the server's env, its reply), the episode's state on
          // the server is no longer known here.
          const because = current.open
            ? (error as Error).message
            : (current.problem ?? 'the connection closed');
          throw episode.lost(because, error);
        }
      });
    },
    async close(): Promise<void> {
      const current = socket;
      socket = undefined;
      episode.lose('the env was closed');
      await current?.close();
    },
  };
}
