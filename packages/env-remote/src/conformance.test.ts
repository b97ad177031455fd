// The remote env passes the TextEnv conformance checks over both protocols, against our own env
// server serving Maze and ALFWorld in this process, and plays oracle episodes to a win.
import { mazeTasks } from '@pilotrl/env-maze';
import { checkEnv } from '@pilotrl/env-testkit/vitest';
import { afterAll, describe, expect, it } from 'vitest';
import { createRemoteEnv, type RemoteEnvConfig, remoteTasks } from './index';
import { alfworldTasks, serve } from './serve.testing';

const { server, url } = await serve();
afterAll(() => server.close());

const remote = (config: RemoteEnvConfig) => () => createRemoteEnv(config);

checkEnv(remote({ protocol: 'openenv', url: `${url}/openenv/maze`, envId: 'maze' }), {
  name: 'Maze over OpenEnv',
  resets: [{ seed: 0 }, { seed: 17 }, { seed: 3, taskId: 'valid_unseen-3' }],
  stepLimit: {
    maxSteps: 4,
    create: remote({ protocol: 'openenv', url: `${url}/openenv/maze`, envId: 'maze', maxSteps: 4 }),
  },
  taskSource: mazeTasks,
  tasksPerSplit: 4,
});

checkEnv(remote({ protocol: 'openenv', url: `${url}/openenv/alfworld`, envId: 'alfworld' }), {
  name: 'ALFWorld over OpenEnv',
  resets: [{ seed: 0 }, { seed: 7 }, { seed: 0, taskId: 'gen/10/3' }],
  stepLimit: {
    maxSteps: 6,
    create: remote({ protocol: 'openenv', url: `${url}/openenv/alfworld`, envId: 'alfworld', maxSteps: 6 }),
  },
  taskSource: alfworldTasks,
  tasksPerSplit: 1,
  // The checks test the transport here, not the game (env-alfworld checks that): fewer states suffice.
  statesPerEpisode: 2,
  maxActionsPerState: 8,
});

checkEnv(remote({ protocol: 'agentgym', dialect: 'maze', url: `${url}/maze` }), {
  name: "Maze over AgentGym's dialect",
  resets: [{ seed: 0 }, { seed: 17 }, { seed: 3, taskId: 'maze_3' }],
  stepLimit: {
    maxSteps: 4,
    create: remote({ protocol: 'agentgym', dialect: 'maze', url: `${url}/maze`, maxSteps: 4 }),
  },
});

checkEnv(remote({ protocol: 'agentgym', dialect: 'alfworld', url: `${url}/alfworld` }), {
  name: "ALFWorld over AgentGym's dialect",
  resets: [{ seed: 7 }, { seed: 2425, taskId: 'alfworld_2425' }],
  statesPerEpisode: 2,
  maxActionsPerState: 8,
  stepLimit: {
    maxSteps: 6,
    create: remote({ protocol: 'agentgym', dialect: 'alfworld', url: `${url}/alfworld`, maxSteps: 6 }),
  },
});

describe('oracle episodes', () => {
  it('win an ALFWorld task over OpenEnv, with reward 1 and the task named', async () => {
    const [task] = await alfworldTasks.tasks('valid_unseen', { offset: 2, limit: 1 });
    const { actions } = await alfworldTasks.oracle!(task!);
    const env = createRemoteEnv({ protocol: 'openenv', url: `${url}/openenv/alfworld` });
    const first = await env.reset({ seed: task!.seed, taskId: task!.taskId });
    expect(first.info.taskId).toBe(task!.taskId);
    expect(first.info.task).toBe(task!.description);
    let last = first;
    for (const action of actions) last = await env.step(action);
    expect(last).toMatchObject({
      reward: 1,
      terminated: true,
      truncated: false,
      info: { won: true, valid: true },
    });
    await env.close?.();
  });

  it("win AgentGym's ALFWorld game g, task g of the server's train split, with the server's task type", async () => {
    const tasks = remoteTasks({
      envId: 'alfworld',
      splits: { train: { count: 2420 }, test: { start: 2420, count: 200 } },
    });
    const [ref] = await tasks.tasks('train', { offset: 5, limit: 1 });
    expect(ref).toEqual({ taskId: 'alfworld_5', split: 'train', seed: 5 });
    const [task] = await alfworldTasks.tasks('train', { offset: 5, limit: 1 });
    const { actions } = await alfworldTasks.oracle!(task!);
    const env = createRemoteEnv({ protocol: 'agentgym', dialect: 'alfworld', url: `${url}/alfworld` });
    const first = await env.reset(ref!);
    expect(first.info.server).toEqual({ task_type: expect.any(String) });
    let last = first;
    for (const action of actions) last = await env.step(action);
    expect(last).toMatchObject({ reward: 1, terminated: true, info: { won: true, valid: true } });
    await env.close?.();
  });

  it('lose a Maze game past its 50 moves: terminated, not won, reward -1', async () => {
    const env = createRemoteEnv({ protocol: 'agentgym', dialect: 'maze', url: `${url}/maze` });
    await env.reset({ seed: 0 });
    let last = await env.step('move left');
    for (let i = 0; i < 50 && !last.terminated; i++) last = await env.step('move left');
    expect(last).toMatchObject({
      observation: 'Failure\n',
      reward: -1,
      terminated: true,
      info: { won: false },
    });
    await env.close?.();
  });
});
