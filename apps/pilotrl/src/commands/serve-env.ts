// `pilotrl serve-env`: the registered envs served to Python trainers over OpenEnv and AgentGym's
// HTTP dialects (@pilotrl/env-server) until SIGINT or SIGTERM; then requests in flight get a bounded
// time to finish and WebSockets are closed with a close frame.
import { createEnvServer, type EnvServerLimits, type ServedEnv } from '@pilotrl/env-server';
import { LOOPBACK_HOSTS, tokenFromEnv } from '@pilotrl/http-guard';
import { envProviders } from '../plugins/registry';
import type { CliIo } from './io';
import type { SignalSource } from './serve';

export interface ServeEnvOptions {
  /** Registry ids of the envs to serve, e.g. `['alfworld', 'maze']`. */
  envs: readonly string[];
  port: number;
  host: string;
  limits?: EnvServerLimits;
  /** Host names answered besides the loopback ones. */
  allowHosts?: readonly string[];
  /** Web origins whose pages may call the server (none by default). */
  allowOrigins?: readonly string[];
  /** The environment variable holding the bearer key clients must send. */
  apiKeyEnv?: string;
  /** How long a shutdown lets requests in flight finish before cutting them (default 10 s). */
  shutdownTimeoutMs?: number;
}

const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;

/** The registry's env as the server takes it: the provider's factory and task source, default options. */
export function servedEnv(envId: string): ServedEnv {
  const provider = envProviders.get(envId)({});
  return {
    envId,
    createEnv: (options) => provider.createEnv(options ?? {}),
    tasks: provider.tasks,
  };
}

export async function serveEnv(options: ServeEnvOptions, io: CliIo) {
  const token = options.apiKeyEnv === undefined ? undefined : tokenFromEnv(options.apiKeyEnv);
  const server = createEnvServer({
    envs: options.envs.map(servedEnv),
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    security: {
      allowedHosts: [...LOOPBACK_HOSTS, ...(options.allowHosts ?? [])],
      allowedOrigins: [...(options.allowOrigins ?? [])],
      ...(token === undefined ? {} : { token }),
    },
    log: (line) => io.stderr.write(`${line}\n`),
  });
  const url = await server.listen(options.port, options.host);
  const base = (path: string) => `${url}${path === '/' ? '' : path}`;
  io.stdout.write(`pilotrl: serving ${options.envs.join(', ')} at ${url}\n`);
  if (token !== undefined) io.stdout.write(`  clients send Authorization: Bearer <$${options.apiKeyEnv}>\n`);
  for (const path of server.routes.openenv)
    io.stdout.write(`  OpenEnv   ${base(path)} (WebSocket ${base(path).replace(/^http/, 'ws')}/ws)\n`);
  for (const path of server.routes.agentgym) io.stdout.write(`  AgentGym  ${base(path)}\n`);
  io.stdout.write(`  metrics   ${url}/metrics\n`);
  return server;
}

/**
 * Serves until the first SIGINT or SIGTERM; then stops accepting, lets requests in flight finish for
 * up to `shutdownTimeoutMs`, closes WebSockets with a close frame and every session. The handlers go
 * with the first signal, so a second one ends the process at once.
 */
export async function serveEnvUntilStopped(
  options: ServeEnvOptions,
  io: CliIo,
  signals: SignalSource = process,
): Promise<void> {
  const server = await serveEnv(options, io);
  const signal = await new Promise<string>((resolve) => {
    const stop = (name: string) => {
      for (const each of ['SIGINT', 'SIGTERM']) signals.off(each, stop);
      resolve(name);
    };
    for (const each of ['SIGINT', 'SIGTERM']) signals.on(each, stop);
  });
  const timeoutMs = options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
  io.stderr.write(
    `pilotrl: ${signal}: stopping; requests in flight get up to ${timeoutMs / 1000} s to finish, then every session is closed\n`,
  );
  await server.close({ timeoutMs });
}
