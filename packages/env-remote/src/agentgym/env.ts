// A TextEnv over an AgentGym-dialect server: `/create` once (with bounded retries while the server
// cannot be reached), `/reset` per episode on the same session id, `/step` per action, `/close` at
// the end. A reset whose session the server no longer knows (restarted, reaped while idle) creates
// a new one; a server that goes away mid-episode loses the episode, which the next step says.
import {
  EnvError,
  InvalidArgumentError,
  parseOrThrow,
  type ResetOptions,
  resetOptionsSchema,
  type StepResult,
  type TextEnv,
  TimeoutError,
} from '@pilotrl/core';
import { z } from 'zod';
import { oneCallAtATime, RemoteEpisode } from '../episode';
import type { ResolvedAgentGymConfig } from '../options';
import { ConnectFailure, withConnectRetries } from '../retry';
import { type AgentGymClientDialect, clientDialects, type DialectReply, readReply } from './dialects';
import { callJson } from './http';

/**
 * AgentGym's item number for reset options: the number in `taskId` (`12`, or an AgentGym item id
 * such as `textcraft_12`), else the seed.
 */
export function agentGymIndex(options: ResetOptions, envId: string): number {
  if (options.taskId === undefined) return options.seed;
  const match = /^(?:[A-Za-z][\w-]*_)?(\d+)$/.exec(options.taskId);
  if (match === null || !Number.isSafeInteger(Number(match[1]))) {
    throw new InvalidArgumentError(
      `${envId}: AgentGym servers pick a task by number; give taskId as "<n>" or an AgentGym item id "<name>_<n>", or only a seed (got taskId "${options.taskId}")`,
    );
  }
  return Number(match[1]);
}

const createReply = z.looseObject({ id: z.number().int() });

export function createAgentGymEnv(config: ResolvedAgentGymConfig): TextEnv {
  const dialect: AgentGymClientDialect = clientDialects[config.dialect];
  const envId = config.envId ?? config.dialect;
  const base = config.url.replace(/\/+$/, '');
  const episode = new RemoteEpisode(envId, config.maxSteps);
  let id: number | undefined;
  let routeActions: string[] | undefined;

  /** A call whose failure to reach the server is an EnvError (it is not retried: it may have been played). */
  const call = async (route: string, body: unknown, what: string) => {
    try {
      return await callJson(`${base}/${route}`, body, {
        timeoutMs: config.requestTimeoutMs,
        maxReplyBytes: config.maxMessageBytes,
        what,
      });
    } catch (error) {
      if (error instanceof ConnectFailure) {
        throw new EnvError(`${base}: ${what} could not reach the server (${error.message})`, {
          cause: error,
        });
      }
      throw error;
    }
  };

  const create = async (): Promise<number> => {
    const reply = await withConnectRetries(
      { ...config, url: base },
      `${envId} (AgentGym ${dialect.name})`,
      async () => {
        try {
          return await callJson(
            `${base}/create`,
            {},
            { timeoutMs: config.connectTimeoutMs, maxReplyBytes: config.maxMessageBytes, what: 'create' },
          );
        } catch (error) {
          // A create that timed out made at most a session nobody will use: try again.
          if (TimeoutError.isInstance(error)) throw new ConnectFailure((error as Error).message, true);
          throw error;
        }
      },
    );
    const parsed = createReply.safeParse(reply);
    if (!parsed.success) {
      throw new EnvError(
        `${base}: the reply to create has no integer "id": ${JSON.stringify(reply)?.slice(0, 300)}`,
      );
    }
    routeActions = undefined;
    return parsed.data.id;
  };

  const admissible = async (reply: DialectReply, session: number): Promise<DialectReply> => {
    const route = dialect.admissibleRoute;
    if (route === undefined || reply.admissibleActions !== undefined) return reply;
    if (routeActions === undefined) {
      const path = route.idFree ? route.route : `${route.route}?id=${session}`;
      const listed = await call(path, undefined, route.route);
      try {
        routeActions = route.read(listed);
      } catch {
        throw new EnvError(
          `${base}: GET /${route.route} did not answer a list of strings: ${JSON.stringify(listed)?.slice(0, 300)}`,
        );
      }
    }
    return { ...reply, admissibleActions: routeActions };
  };

  const reset = async (session: number, index: number) => {
    const body = dialect.resetBody(session, index, config.worldType);
    const reply = readReply(dialect, 'reset', await call('reset', body, 'reset'), base);
    return admissible(reply, session);
  };

  /**
   * Best effort, as AgentGym-RL closes: ALFWorld's, Maze's and Wordle's servers have no /close
   * (404), and a server that is gone took the session with it.
   */
  const closeSession = async (session: number) => {
    try {
      await callJson(
        `${base}/close`,
        { id: session },
        { timeoutMs: config.requestTimeoutMs, maxReplyBytes: config.maxMessageBytes, what: 'close' },
      );
    } catch {
      // Nothing to release that the server still holds, or no way to release it.
    }
  };

  const exclusive = oneCallAtATime(envId);

  return {
    envId,
    reset(options: ResetOptions): Promise<StepResult> {
      return exclusive('reset()', async () => {
        const parsed = parseOrThrow(resetOptionsSchema, options, `${envId} reset options`);
        const index = agentGymIndex(parsed, envId);
        episode.lose('the last reset() failed');
        if (id === undefined) {
          id = await create();
          return episode.begin(await reset(id, index));
        }
        try {
          return episode.begin(await reset(id, index));
        } catch (error) {
          if (TimeoutError.isInstance(error)) throw error;
          // The session may be gone (server restarted, idle session reaped): start a new one, once.
          // Close the old one first: a restarted server may give the new session the same id.
          const stale = id;
          id = undefined;
          await closeSession(stale);
          id = await create();
          return episode.begin(await reset(id, index));
        }
      });
    },
    step(action: string): Promise<StepResult> {
      return exclusive('step()', async () => {
        const over = episode.check();
        if (over !== undefined) return over;
        const command = typeof action === 'string' ? action : '';
        let reply: DialectReply;
        try {
          reply = readReply(dialect, 'step', await call('step', { id, action: command }, 'step'), base);
        } catch (error) {
          throw episode.lost(error instanceof Error ? error.message : String(error), error);
        }
        return episode.advance(command, await admissible(reply, id!));
      });
    },
    async close(): Promise<void> {
      const session = id;
      id = undefined;
      episode.lose('the env was closed');
      if (session !== undefined) await closeSession(session);
    },
  };
}
