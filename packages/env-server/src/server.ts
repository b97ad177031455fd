// One Node process serving envs to Python trainers: OpenEnv (WebSocket and HTTP) at
// `/openenv/<envId>/...` (and at the root when one env is served, so `GenericEnvClient(base_url)`
// works unchanged), and AgentGym's dialects at `/<dialect>/...`, all over one session pool.
// Every request, upgrades included, passes the request guard first (Host, Origin, optional bearer
// token: @pilotrl/http-guard), and every connection counts against caps in total and per client.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { InvalidArgumentError, PilotRLError, parseOrThrow } from '@pilotrl/core';
import {
  BodyTooLargeError,
  capConnections,
  parseRequest,
  quoted,
  RequestGuard,
  type RequestGuardOptions,
  readBody,
  refuseUpgrade,
} from '@pilotrl/http-guard';
import { WebSocketServer } from 'ws';
import { agentgymDialects } from './agentgym/dialects';
import { AgentGymRuntime } from './agentgym/runtime';
import { parseJson, sendJson } from './http-io';
import { ServerMetrics } from './metrics';
import type { OpenEnvContext } from './openenv/context';
import { openEnvHttp } from './openenv/http-routes';
import { acceptOpenEnvSocket } from './openenv/socket';
import { type EnvServerLimits, envServerLimitsSchema } from './options';
import { publicMessage, type ServerLog, stderrLog } from './public-error';
import { envReward, type ServedEnv, type StepReward } from './served-env';
import { SessionPool } from './sessions';

export interface EnvServerOptions {
  /** The envs to serve; each gets OpenEnv routes, and an AgentGym dialect where one exists for its id. */
  envs: readonly ServedEnv[];
  limits?: EnvServerLimits;
  /** The reward OpenEnv reports per step (default: the env's own). */
  reward?: StepReward;
  /** Who may call: allowed Host names and Origins, and the bearer token (none by default). */
  security?: RequestGuardOptions;
  /** Where internal errors go, with their causes, instead of into answers (default stderr). */
  log?: ServerLog;
  /** The clock of idle reaping and metrics, in ms (tests pass their own). */
  now?: () => number;
}

export interface EnvServer {
  /** Starts listening; resolves with the base URL, e.g. `http://127.0.0.1:8000`. */
  listen(port?: number, host?: string): Promise<string>;
  /**
   * Drains, then stops: answers the requests clients already sent (for up to `timeoutMs`, default 0),
   * stops listening, closes every WebSocket with a close frame (1001, going away) and every session,
   * then cuts the connections left.
   */
  close(options?: { timeoutMs?: number }): Promise<void>;
  /** Closes the sessions idle past the limit now (the server also does it on a timer). */
  reapIdle(): Promise<number>;
  /** What `GET /metrics` answers. */
  metrics(): EnvServerMetrics;
  /** The routes served, for logs: OpenEnv bases and AgentGym prefixes. */
  readonly routes: { openenv: string[]; agentgym: string[] };
}

/** The server's metrics: sessions, steps and errors, and connections open and refused over a cap. */
export type EnvServerMetrics = ReturnType<ServerMetrics['snapshot']> & {
  connections: { open: number; refused: number; max: number };
};

/** A request body that is not JSON or is too large; its status is OpenEnv's (AgentGym answers 200). */
class BadBodyError extends PilotRLError {
  static override readonly errorName = 'BadBodyError';
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** The client a request or connection comes from: its address, IPv4 ones without the IPv6 prefix. */
function clientOf(request: IncomingMessage): string {
  const address = request.socket.remoteAddress ?? 'unknown';
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

const version = (): string =>
  (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
    .version;

/** How long a shutdown waits with no request in flight before it closes the connections left. */
const SHUTDOWN_QUIET_MS = 100;
/** How many samples after an I/O phase must find nothing in flight before the drain ends. */
const SHUTDOWN_QUIET_SAMPLES = 5;

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
  const log = options.log ?? stderrLog;
  const guard = new RequestGuard(options.security ?? {});
  const metrics = new ServerMetrics(now);
  const pool = new SessionPool(limits, metrics, now);
  const packageVersion = version();

  const openenv = new Map<string, OpenEnvContext>(
    options.envs.map((served) => [
      served.envId,
      { served, pool, metrics, limits, reward: options.reward ?? envReward, log },
    ]),
  );
  const single = options.envs.length === 1 ? openenv.get(options.envs[0]!.envId) : undefined;
  const dialects = new Map<string, AgentGymRuntime>();
  for (const served of options.envs) {
    const dialect = agentgymDialects.get(served.envId);
    if (dialect !== undefined)
      dialects.set(dialect.name, new AgentGymRuntime({ dialect, served, pool, metrics, limits, log }));
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
    const refused = guard.check(request);
    if (refused !== undefined) {
      metrics.error(refused.reason);
      return { status: refused.status, body: { detail: refused.message } };
    }
    const parsed = parseRequest(request);
    if (parsed === undefined) {
      metrics.error('bad_request_target');
      return {
        status: 400,
        body: { detail: 'The request target is not a path such as /openenv/<env>/reset' },
      };
    }
    const { method, path, query } = parsed;
    const client = clientOf(request);
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
          client,
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
      const reply = await runtime.handle(method, sub, query, body, client);
      if (reply !== undefined) return { status: 200, body: reply };
    }
    metrics.error('no_route');
    return {
      status: 404,
      body: {
        detail: `No route ${method.slice(0, 16)} ${quoted(path)}; OpenEnv at ${routes.openenv.join(', ')} (ws, reset, step, state, health, schema, metadata), AgentGym at ${routes.agentgym.join(', ') || '(none)'}`,
      },
    };
  }

  const snapshot = (): EnvServerMetrics => ({
    ...metrics.snapshot({ open: pool.size, max: limits.maxSessions, byProtocol: pool.byProtocol() }),
    connections: { open: connections.open(), refused: connections.refused(), max: limits.maxConnections },
  });

  // Header and body deadlines are checked every `connectionsCheckingInterval` (Node's default: 30 s).
  /** Set by close(): answers end their connections, and upgrades are refused. */
  let closing = false;
  let inFlight = 0;
  const http = createServer(
    { connectionsCheckingInterval: 1000 },
    (request: IncomingMessage, response: ServerResponse) => {
      inFlight += 1;
      response.once('close', () => {
        inFlight -= 1;
      });
      // An answer written while the server shuts down ends its connection.
      if (closing) response.setHeader('connection', 'close');
      route(request)
        .then(({ status, body }) => sendJson(response, status, body))
        .catch((error: unknown) => {
          metrics.error('internal');
          sendJson(response, 500, { detail: publicMessage(error, log, 'the request') });
        });
    },
  );
  // Trainers keep connections alive across a round of model generation, and a burst of resets can
  // keep the server from reading a socket's next request for seconds: Node's 5 s default would drop
  // such sockets under the client (ECONNRESET on its next request). Headers and bodies that trickle
  // in are cut sooner, and connections are capped, so slow clients cannot hold the server.
  http.keepAliveTimeout = KEEP_ALIVE_MS;
  http.headersTimeout = limits.headersTimeoutMs;
  http.requestTimeout = limits.requestTimeoutMs;
  const connections = capConnections(http, {
    maxConnections: limits.maxConnections,
    maxConnectionsPerClient: limits.maxConnectionsPerClient,
  });
  // A message far over the limit is cut by `ws` itself (close code 1009) before it is buffered whole,
  // fragmented or not; one up to 64 KiB over is answered with an error message, so a client sees why.
  const sockets = new WebSocketServer({ noServer: true, maxPayload: limits.maxMessageBytes + 65_536 });
  http.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    try {
      upgrade(request, socket, head);
    } catch (error) {
      metrics.error('internal');
      log(`env-server: upgrade: ${(error as Error)?.stack ?? String(error)}`);
      socket.destroy();
    }
  });
  function upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    const refused = guard.check(request);
    if (refused !== undefined) {
      metrics.error(refused.reason);
      refuseUpgrade(socket, refused.status, refused.message);
      return;
    }
    const parsed = parseRequest(request);
    if (parsed === undefined) {
      metrics.error('bad_request_target');
      refuseUpgrade(socket, 400, 'The request target is not a path such as /openenv/<env>/ws');
      return;
    }
    const match = /^\/openenv\/([^/]+)\/ws$/.exec(parsed.path);
    const context = match !== null ? openenv.get(match[1]!) : parsed.path === '/ws' ? single : undefined;
    if (context === undefined) {
      metrics.error('no_route');
      refuseUpgrade(socket, 404, `No WebSocket at ${quoted(parsed.path)}; OpenEnv's is <base>/ws`);
      return;
    }
    if (closing) {
      refuseUpgrade(socket, 503, 'The server is shutting down');
      return;
    }
    const client = clientOf(request);
    sockets.handleUpgrade(request, socket, head, (ws) => acceptOpenEnvSocket(ws, context, client));
  }
  return {
    routes,
    listen(port = 0, host = '127.0.0.1') {
      guard.allowHost(host);
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
    async close({ timeoutMs = 0 } = {}) {
      // The listener stays up until the requests clients already sent are answered: a connection or a
      // request that arrived while the server was busy is only read once it is free, so the server
      // waits for a quiet moment with nothing in flight (answers meanwhile end their connections),
      // then stops listening.
      closing = true;
      const deadline = Date.now() + timeoutMs;
      // Quiet is sampled after the event loop's I/O phase (setImmediate), and must hold over several
      // samples as well as SHUTDOWN_QUIET_MS: on a busy machine the process can be off the CPU for
      // longer than that between two timers, and a timer alone would then end the drain before the
      // connections and requests that arrived meanwhile had been read.
      let quietSince = Number.POSITIVE_INFINITY;
      let quietSamples = 0;
      while (Date.now() < deadline) {
        if (inFlight > 0) {
          quietSince = Number.POSITIVE_INFINITY;
          quietSamples = 0;
        } else {
          if (quietSince === Number.POSITIVE_INFINITY) quietSince = Date.now();
          quietSamples += 1;
          if (quietSamples >= SHUTDOWN_QUIET_SAMPLES && Date.now() - quietSince >= SHUTDOWN_QUIET_MS) break;
        }
        await new Promise((resolve) => setTimeout(() => setImmediate(resolve), 10));
      }
      const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
      for (const client of sockets.clients) client.close(1001, 'server shutting down');
      await Promise.race([
        Promise.all(
          [...sockets.clients].map((client) => new Promise<void>((resolve) => client.once('close', resolve))),
        ),
        new Promise<void>((resolve) => setTimeout(resolve, 1000).unref()),
      ]);
      for (const client of sockets.clients) client.terminate();
      sockets.close();
      await pool.closeAll();
      http.closeAllConnections();
      await stopped;
    },
    reapIdle: () => pool.reapIdle(),
    metrics: snapshot,
  };
}
