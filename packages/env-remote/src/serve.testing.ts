// Test helpers: our own env server (Maze and ALFWorld) on an ephemeral port of 127.0.0.1, which the
// remote env plays over both protocols, and one that can be stopped and started again on its port.
import { createAlfworldEnv, createGeneratedTaskSource } from '@pilotrl/env-alfworld';
import { createMazeEnv, mazeTasks } from '@pilotrl/env-maze';
import { createEnvServer, type EnvServer, type EnvServerOptions, type ServedEnv } from '@pilotrl/env-server';

export const alfworldTasks = createGeneratedTaskSource();

export const servedEnvs: ServedEnv[] = [
  { envId: 'maze', createEnv: (options) => createMazeEnv(options), tasks: mazeTasks },
  { envId: 'alfworld', createEnv: (options) => createAlfworldEnv(options), tasks: alfworldTasks },
];

export interface Served {
  readonly server: EnvServer;
  readonly url: string;
  readonly port: number;
}

export async function serve(options: Partial<EnvServerOptions> = {}, port = 0): Promise<Served> {
  const server = createEnvServer({ envs: servedEnvs, ...options });
  const url = await server.listen(port, '127.0.0.1');
  return { server, url, port: Number(new URL(url).port) };
}
