// The bench's load generator works: two sessions, a few steps, over both protocols, against a
// server in this process. Counts only; no timings are asserted.
import { createAlfworldEnv, createGeneratedTaskSource } from '@pilotrl/env-alfworld';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEnvServer, type EnvServer } from '../src/index';
import { type LoadTask, runLoad } from './load';

describe('bench load generator', () => {
  let server: EnvServer;
  let url: string;
  let tasks: LoadTask[];
  beforeAll(async () => {
    const source = createGeneratedTaskSource();
    server = createEnvServer({
      envs: [{ envId: 'alfworld', createEnv: (o) => createAlfworldEnv(o), tasks: source }],
    });
    url = await server.listen(0, '127.0.0.1');
    tasks = (await source.tasks('train', { limit: 2 })).map((ref, game) => ({ taskId: ref.taskId, game }));
  });
  afterAll(() => server.close());

  for (const protocol of ['ws', 'http'] as const) {
    it(`plays ${protocol} sessions for a step budget, with resets`, async () => {
      const result = await runLoad({
        protocol,
        baseUrl: url,
        sessions: 2,
        tasks,
        steps: 12,
        episodeSteps: 4,
      });
      expect(result).toMatchObject({ protocol, sessions: 2, steps: 12, errors: 0 });
      expect(result.resets).toBeGreaterThanOrEqual(2);
      expect(result.p50Ms).toBeGreaterThan(0);
      expect(result.p99Ms).toBeGreaterThanOrEqual(result.p50Ms);
      expect(server.metrics().sessions.open).toBe(0);
    });
  }
});
