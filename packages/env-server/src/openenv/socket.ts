// OpenEnv's WebSocket `/ws`: one session (one env, one episode at a time) per connection, messages
// answered in the order they came, every problem answered as `{type: "error", data: {message, code}}`
// while the connection (and the server) stays up.
import { randomUUID } from 'node:crypto';
import { describeIssues, PilotRLError, TimeoutError } from '@pilotrl/core';
import { quoted } from '@pilotrl/http-guard';
import type { RawData, WebSocket } from 'ws';
import type { z } from 'zod';
import { publicMessage } from '../public-error';
import { goneReason, type Session, SessionLimitError } from '../sessions';
import type { OpenEnvContext } from './context';
import { type OpenEnvEpisode, resetEpisode, stateOf, stepEpisode } from './episode';
import { type OpenEnvErrorCode, openEnvActionSchema, openEnvResetSchema, wsErrorReply } from './wire';

/** Messages waiting behind the one being answered; a client that floods past this hears so. */
const MAX_QUEUED = 64;

interface SocketState {
  episode: OpenEnvEpisode | undefined;
}

export function acceptOpenEnvSocket(socket: WebSocket, context: OpenEnvContext, client: string): void {
  const { pool, served, metrics, limits } = context;
  const send = (reply: unknown) => {
    if (socket.readyState !== socket.OPEN) return;
    // A client that does not read its replies is cut, rather than held in memory without bound.
    if (socket.bufferedAmount > limits.maxUnreadBytes) {
      metrics.error('openenv_unread_replies');
      socket.terminate();
      return;
    }
    socket.send(JSON.stringify(reply));
  };
  const fail = (message: string, code: OpenEnvErrorCode, extra?: Record<string, unknown>) => {
    metrics.error(`openenv_${code.toLowerCase()}`);
    send(wsErrorReply(message, code, extra));
  };

  let session: Session<SocketState>;
  try {
    session = pool.open<SocketState>('openenv', `openenv/${randomUUID()}`, { episode: undefined }, client);
    session.env = served.createEnv();
  } catch (error) {
    if (SessionLimitError.isInstance(error)) {
      const full = error as SessionLimitError;
      fail(full.message, 'CAPACITY_REACHED', { active_sessions: full.open, max_sessions: full.max });
    } else {
      fail(`${served.envId}: ${publicMessage(error, context.log, 'creating the env')}`, 'SESSION_ERROR');
    }
    socket.close(1013, 'no session');
    return;
  }
  session.onClose = (reason) => {
    // The client's own close and its disconnect need no telling; a reaped or capped session does.
    if (reason !== 'disconnected' && reason !== 'closed' && socket.readyState === socket.OPEN) {
      fail(`This session is over: ${goneReason(reason, limits.idleTimeoutMs)}`, 'SESSION_ERROR');
      socket.close(1000, reason);
    }
  };

  let queue: Promise<void> = Promise.resolve();
  let queued = 0;
  socket.on('message', (data: RawData) => {
    if (queued >= MAX_QUEUED) {
      fail(
        `More than ${MAX_QUEUED} messages are waiting; wait for each reply before sending more`,
        'EXECUTION_ERROR',
      );
      return;
    }
    queued += 1;
    queue = queue
      .then(() => answer(data))
      .finally(() => {
        queued -= 1;
      });
  });
  // A half-open socket (a client gone without a FIN) answers no ping: it is cut, and its session
  // freed, within two heartbeats instead of at the idle reap.
  let answered = true;
  socket.on('pong', () => {
    answered = true;
  });
  const heartbeat = setInterval(() => {
    if (!answered) {
      metrics.error('openenv_heartbeat_lost');
      socket.terminate();
      return;
    }
    answered = false;
    socket.ping();
  }, limits.heartbeatMs);
  heartbeat.unref();
  socket.on('close', () => {
    clearInterval(heartbeat);
    void pool.close(session.key, 'disconnected');
  });
  socket.on('error', () => socket.terminate());

  const parse = <S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> | undefined => {
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    fail(`Invalid ${what}: ${describeIssues(parsed.error.issues).join('; ')}`, 'VALIDATION_ERROR');
    return undefined;
  };

  async function answer(data: RawData): Promise<void> {
    const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
    if (bytes.length > limits.maxMessageBytes) {
      fail(
        `A message of ${bytes.length} bytes is over the limit of ${limits.maxMessageBytes} bytes`,
        'VALIDATION_ERROR',
      );
      return;
    }
    let message: unknown;
    try {
      message = JSON.parse(bytes.toString('utf8'));
    } catch (error) {
      fail(`Invalid JSON: ${(error as Error).message.slice(0, 200)}`, 'INVALID_JSON');
      return;
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      fail(
        'Invalid message: send a JSON object with a "type" (reset, step, state or close)',
        'VALIDATION_ERROR',
      );
      return;
    }
    const { type, data: body } = message as { type?: unknown; data?: unknown };
    const current = pool.find<SocketState>(session.key);
    if ('gone' in current) return; // The session ended; its socket is closing.
    try {
      switch (type) {
        case 'reset': {
          const options = parse(openEnvResetSchema, body ?? {}, 'reset data');
          if (options === undefined) return;
          const env = session.env!;
          const { episode, reply } = await pool.run(session, 'reset', () =>
            resetEpisode(served, env, options),
          );
          session.state.episode = episode;
          send({ type: 'observation', data: reply });
          return;
        }
        case 'step': {
          const action = parse(openEnvActionSchema, body, 'action (send {"action": "<command>"})');
          if (action === undefined) return;
          const episode = session.state.episode;
          if (episode === undefined) {
            fail('No episode yet: send {"type": "reset"} before the first step', 'EXECUTION_ERROR');
            return;
          }
          const env = session.env!;
          const reply = await pool.run(session, 'step', () =>
            stepEpisode(served, env, episode, action.action, context.reward),
          );
          metrics.step();
          send({ type: 'observation', data: reply });
          return;
        }
        case 'state':
          send({ type: 'state', data: stateOf(served.envId, session.state.episode) });
          return;
        case 'close':
          await pool.close(session.key, 'closed');
          socket.close(1000, 'closed');
          return;
        default:
          fail(`Unknown message type ${quoted(type)}; use reset, step, state or close`, 'UNKNOWN_TYPE');
      }
    } catch (error) {
      fail(publicMessage(error, context.log, typeof type === 'string' ? type : 'message'), 'EXECUTION_ERROR');
      if (TimeoutError.isInstance(error)) socket.close(1011, 'step deadline');
      else if (!PilotRLError.isInstance(error)) metrics.error('openenv_env_failure');
    }
  }
}
