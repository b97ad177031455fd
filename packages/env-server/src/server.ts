// One Node process serving envs to Python trainers: OpenEnv (WebSocket and HTTP) at
// `/openenv/<envId>/...` (and at the root when one env is served, so `GenericEnvClient(base_url)`
// works unchanged), and AgentGym's dialects at `/<dialect>/...`, all over one session pool.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { InvalidArgumentError, parseOrThrow } from '@pilotrl/core';
import { WebSocketServer } from 'ws';
import { agentgymDialects } from './agentgym/dialects';
import { AgentGymRuntime } from './agentgym/runtime';
import { BodyTooLargeError, parseJson, parseRequest, readBody, sendJson } from './http-io';
import { ServerMetrics } from './metrics';
import type { OpenEnvContext } from './openenv/context';
import { openEnvHttp } from './openenv/http-routes';
import { acceptOpenEnvSocket } from './openenv/socket';
import { type EnvServerLimits, envServerLimitsSchema } from './options';
import { envReward, type ServedEnv, type StepReward } from './served-env';
import { SessionPool } from './sessions';

export interface EnvServerOptions {
  /** The envs to serve; each gets OpenEnv routes, and an AgentGym dialect where one exists for its id. */
  envs: readonly ServedEnv[];
  limits?: EnvServerLimits;
  /** The reward OpenEnv reports per step (default: the env's own). */
  reward?: StepReward;
  /** The clock of idle reaping and metrics, in ms (tests pass their own). */
  now?: () => number;
}

export interface EnvServer {
  /** Starts listening; resolves with the base URL, e.g. `http://127.0.0.1:8000`. */
  listen(port?: number, host?: string): Promise<string>;
  /** Stops accepting, closes every session and connection. */
  close(): Promise<void>;
  /** Closes the sessions idle past the limit now (the server also does it on a timer). */
  reapIdle(): Promise<number>;
  /** What `GET /metrics` answers. */
  metrics(): ReturnType<ServerMetrics['snapshot']>;
  /** The routes served, for logs: OpenEnv bases and AgentGym prefixes. */
  readonly routes: { openenv: string[]; agentgym: string[] };
}

/** A request body that is not JSON or is too large; its status is OpenEnv's (AgentGym answers 200). */
class BadBodyError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

const version = (): string =>
  (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
    .version;

/** How long an idle keep-alive connection stays open. */
const KEEP_ALIVE_MS = 120_000;

export function createEnvServer(options: EnvServerOptions): EnvServer {
  const limits = parseOrThrow(envServerLimitsSchema, options.limits ?? {}, 'env server limits');
  const ids = options.envs.map((env) => env.envId);
  const duplicate = ids.find((id, i) => ids.indexOf(id) !== i);
  if (ids.length === 0) throw new InvalidArgumentError('env server: give at least one env to serve');
  if (duplicate !== undefined)
    throw new InvalidArgumentError(`env server: env "${duplicate}" is given twice`);
  const now = options.now ?? Date.now;
  const metrics = new ServerMetrics(now);
  const pool = new SessionPool(limits, metrics, now);
  const packageVersion = version();

  const openenv = new Map<string, OpenEnvContext>(
    options.envs.map((served) => [
      served.envId,
      { served, pool, metrics, limits, reward: options.reward ?? envReward },
    ]),
  );
  const single = options.envs.length === 1 ? openenv.get(options.envs[0]!.envId) : undefined;
  const dialects = new Map<string, AgentGymRuntime>();
  for (const served of options.envs) {
    const dialect = agentgymDialects.get(served.envId);
    if (dialect !== undefined)
      dialects.set(dialect.name, new AgentGymRuntime({ dialect, served, pool, metrics, limits }));
  }
  const routes = {
    openenv: [...(single === undefined ? [] : ['/']), ...ids.map((id) => `/openenv/${id}`)],
    agentgym: [...dialects.keys()].map((name) => `/${name}`),
  };

  const readJson = async (request: IncomingMessage): Promise<unknown> => {
    let text: string;
    try {
      text = await readBody(request, limits.maxMessageBytes);
    } catch (error) {
      if (error instanceof BodyTooLargeError) throw new BadBodyError(error.message, 413);
      throw error;
    }
    if (text.trim() === '') return undefined;
    const parsed = parseJson(text);
    if (!parsed.ok) throw new BadBodyError(`The request body is not valid JSON: ${parsed.problem}`, 422);
    return parsed.value;
  };

  async function route(request: IncomingMessage): Promise<{ status: number; body: unknown }> {
    const { method, path, query } = parseRequest(request);
    const body = () => readJson(request);
    if (method === 'GET' && path === '/metrics') return { status: 200, body: snapshot() };
    if (method === 'GET' && path === '/health') return { status: 200, body: { status: 'healthy' } };
    if (method === 'GET' && path === '/') {
      return {
        status: 200,
        body: { name: '@pilotrl/env-server', version: packageVersion, envs: ids, ...routes },
      };
    }
    const [, first = '', second = '', ...rest] = path.split('/');
    const openenvTarget =
      first === 'openenv'
        ? { context: openenv.get(second), sub: `/${rest.join('/')}` }
        : { context: single, sub: path };
    if (openenvTarget.context !== undefined) {
      try {
        const reply = await openEnvHttp(
          openenvTarget.context,
          method,
          openenvTarget.sub,
          body,
          packageVersion,
        );
        if (reply !== undefined) return reply;
      } catch (error) {
        if (error instanceof BadBodyError) {
          metrics.error('openenv_bad_body');
          return { status: error.status, body: { detail: error.message } };
        }
        throw error;
      }
    }
    const runtime = dialects.get(first);
    if (runtime !== undefined) {
      const sub = path.slice(first.length + 1);
      const reply = await runtime.handle(method, sub, query, body);
      if (reply !== undefined) return { status: 200, body: reply };
    }
    metrics.error('no_route');
    return {
      status: 404,
      body: {
        detail: `No route ${method} ${path}; OpenEnv at ${routes.openenv.join(', ')} (ws, reset, step, state, health, schema, metadata), AgentGym at ${routes.agentgym.join(', ') || '(none)'}`,
      },
    };
  }

  const snapshot = () =>
    metrics.snapshot({ open: pool.size, max: limits.maxSessions, byProtocol: pool.byProtocol() });

  const http = createServer((request: IncomingMessage, response: ServerResponse) => {
    route(request)
      .then(({ status, body }) => sendJson(response, status, body))
      .catch((error: unknown) => {
        metrics.error('internal');
        sendJson(response, 500, { detail: `Internal error: ${(error as Error)?.message ?? String(error)}` });
      });
  });
  // Trainers keep connections alive across a round of model generation, and a burst of resets can
  // keep the server from reading a socket's next request for seconds: Node's 5 s default would drop
  // such sockets under the client (ECONNRESET on its next request).
  http.keepAliveTimeout = KEEP_ALIVE_MS;
  http.headersTimeout = KEEP_ALIVE_MS + 5_000;
  // A frame far over the limit is cut by `ws` itself (close code 1009); one a little over is
  // answered with an error message, so a client sees why.
  const sockets = new WebSocketServer({ noServer: true, maxPayload: limits.maxMessageBytes * 4 });
  http.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const { path } = parseRequest(request);
    const match = /^\/openenv\/([^/]+)\/ws$/.exec(path);
    const context = match !== null ? openenv.get(match[1]!) : path === '/ws' ? single : undefined;
    if (context === undefined) {
      metrics.error('no_route');
      socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
      return;
    }
    sockets.handleUpgrade(request, socket, head, (ws) => acceptOpenEnvSocket(ws, context));
  });

  return {
    routes,
    listen(port = 0, host = '127.0.0.1') {
      return new Promise((resolve, reject) => {
        http.once('error', reject);
        http.listen(port, host, () => {
          http.off('error', reject);
          const address = http.address() as AddressInfo;
          const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
          resolve(`http://${shown}:${address.port}`);
        });
      });
    },
    async close() {
      for (const client of sockets.clients) client.terminate();
      sockets.close();
      await pool.closeAll();
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    },
    reapIdle: () => pool.reapIdle(),
    metrics: snapshot,
  };
}
