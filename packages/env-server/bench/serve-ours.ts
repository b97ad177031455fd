// Our server for the bench, in a process of its own (as the Python reference runs in its own):
// ALFWorld's generated tasks over OpenEnv (`/ws` at the root, the one env served) and AgentGym's
// ALFWorld dialect (`/alfworld`). Prints `listening <url>` once it accepts connections.
//   node --conditions=@pilotrl/source --import tsx bench/serve-ours.ts [port]
import { createAlfworldEnv, createGeneratedTaskSource } from '@pilotrl/env-alfworld';
import { createEnvServer } from '../src/index';

const server = createEnvServer({
  envs: [{ envId: 'alfworld', createEnv: (o) => createAlfworldEnv(o), tasks: createGeneratedTaskSource() }],
  limits: { maxSessions: 4096 },
});
const url = await server.listen(Number(process.argv[2] ?? 0), '127.0.0.1');
console.log(`listening ${url}`);
const stop = () => void server.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
