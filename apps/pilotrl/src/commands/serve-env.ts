// `pilotrl serve-env`: the registered envs served to Python trainers over OpenEnv and AgentGym's
// HTTP dialects (@pilotrl/env-server) until SIGINT or SIGTERM.
import { createEnvServer, type EnvServerLimits, type ServedEnv } from '@pilotrl/env-server';
import { envProviders } from '../env-providers';
import type { CliIo } from './io';
import type { SignalSource } from './serve';

export interface ServeEnvOptions {
  /** Registry ids of the envs to serve, e.g. `['alfworld', 'maze']`. */
  envs: readonly string[];
  port: number;
  host: string;
  limits?: EnvServerLimits;
}

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
  const server = createEnvServer({
    envs: options.envs.map(servedEnv),
    ...(options.limits === undefined ? {} : { limits: options.limits }),
  });
  const url = await server.listen(options.port, options.host);
  const base = (path: string) => `${url}${path === '/' ? '' : path}`;
  io.stdout.write(`pilotrl: serving ${options.envs.join(', ')} at ${url}\n`);
  for (const path of server.routes.openenv)
    io.stdout.write(`  OpenEnv   ${base(path)} (WebSocket ${base(path).replace(/^http/, 'ws')}/ws)\n`);
  for (const path of server.routes.agentgym) io.stdout.write(`  AgentGym  ${base(path)}\n`);
  io.stdout.write(`  metrics   ${url}/metrics\n`);
  return server;
}

/** Serves until the first SIGINT or SIGTERM, then closes every session. */
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
  io.stderr.write(`pilotrl: ${signal}: closing every session\n`);
  await server.close();
}
