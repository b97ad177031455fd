// How replies become StepResults: each AgentGym dialect's bodies and where its admissible actions
// are (replayed by a raw server with the shapes AgentGym's servers answer), OpenEnv observations
// read by default, by key and by function, the reset data sent, and the task source by number.
import { InvalidArgumentError } from '@pilotrl/core';
import { afterEach, describe, expect, it } from 'vitest';
import { agentGymIndex, createRemoteEnv, remoteTasks, webSocketUrl } from './index';
import { type RawServer, rawHttpServer, rawWebSocketServer } from './misbehaving.testing';

const servers: RawServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** An AgentGym-like server that records each request and answers from `routes`. */
async function agentGym(routes: Record<string, unknown>) {
  const requests: [string, unknown][] = [];
  const server = await rawHttpServer((route, body) => {
    requests.push([route, body]);
    return route in routes ? { body: routes[route] } : { status: 404, body: { detail: 'Not Found' } };
  });
  servers.push(server);
  return { url: server.url, requests };
}

describe("AgentGym's dialects", () => {
  it('BabyAI: the task by data_idx, admissible actions read from the observation, score kept', async () => {
    const observation =
      'In front of you is a wall.\nAvailable actions: ["turn left", "turn right", "check available actions"]';
    const { url, requests } = await agentGym({
      '/create': { id: 3 },
      '/reset': { observation, reward: 0, score: 0, deleted: false, done: false },
      '/step': { observation: 'You reached the goal.', reward: 0.82, score: 0.82, done: true },
    });
    const env = createRemoteEnv({ protocol: 'agentgym', dialect: 'babyai', url });
    const first = await env.reset({ seed: 0, taskId: 'babyai_41' });
    expect(first.admissibleActions).toEqual(['turn left', 'turn right', 'check available actions']);
    expect(first.info.server).toEqual({ score: 0, deleted: false });
    const last = await env.step('turn left');
    expect(last).toMatchObject({
      reward: 0.82,
      terminated: true,
      info: { won: true, valid: true, server: { score: 0.82 } },
    });
    await env.close?.();
    expect(requests).toEqual([
      ['/create', {}],
      ['/reset', { id: 3, data_idx: 41 }],
      ['/step', { id: 3, action: 'turn left' }],
      ['/close', { id: 3 }],
    ]);
  });

  it('Maze: admissible actions from GET /available_actions, once; no /close on the server is fine', async () => {
    const { url, requests } = await agentGym({
      '/create': { id: 0 },
      '/reset': { observation: 'The goal is at position 8, 6.' },
      '/available_actions': ['move left', 'move right', 'move up', 'move down'],
      '/step': { observation: 'The goal is at position 8, 6. You are at 2, 1.', reward: 0, done: false },
    });
    const env = createRemoteEnv({ protocol: 'agentgym', dialect: 'maze', url });
    expect((await env.reset({ seed: 12 })).admissibleActions).toEqual([
      'move left',
      'move right',
      'move up',
      'move down',
    ]);
    const moved = await env.step('move down');
    expect(moved.admissibleActions).toHaveLength(4);
    expect((await env.step('jump')).info.valid).toBe(false);
    await env.close?.();
    expect(requests.map(([route]) => route)).toEqual([
      '/create',
      '/reset',
      '/available_actions',
      '/step',
      '/step',
      '/close',
    ]);
    expect(requests[1]![1]).toEqual({ id: 0, game: 12 });
  });

  it('Wordle: the vocabulary as spaced-out guesses; the reset by seed', async () => {
    const { url, requests } = await agentGym({
      '/create': { id: 1 },
      '/reset': { id: 1, observation: "Let's start Wordle!" },
      '/filtered_vocab': ['panic', 'crane'],
      '/step': { observation: 'p (gray) a (green) n (gray) i (gray) c (gray)', reward: 0, done: false },
    });
    const env = createRemoteEnv({ protocol: 'agentgym', dialect: 'wordle', url });
    const first = await env.reset({ seed: 9 });
    expect(first.admissibleActions).toEqual(['p a n i c', 'c r a n e']);
    expect(first.info.server).toEqual({});
    await env.step('p a n i c');
    expect(requests.slice(1, 3)).toEqual([
      ['/reset', { id: 1, seed: 9 }],
      ['/filtered_vocab', undefined],
    ]);
  });

  it('TextCraft: no admissible list, so every command counts as valid; ALFWorld: world_type sent', async () => {
    const textcraft = await agentGym({
      '/create': { id: 0, observation: 'Crafting commands: ...', done: false, reward: 0 },
      '/reset': { id: 0, observation: 'Crafting commands: ...\nGoal: craft stick.', done: false, reward: 0 },
      '/step': { observation: 'Crafted 4 minecraft:stick', reward: 1, done: true },
    });
    const env = createRemoteEnv({ protocol: 'agentgym', dialect: 'textcraft', url: textcraft.url });
    expect((await env.reset({ seed: 2 })).admissibleActions).toEqual([]);
    expect(await env.step('craft 4 stick using 2 oak planks')).toMatchObject({
      reward: 1,
      info: { won: true, valid: true },
    });
    expect(textcraft.requests[1]).toEqual(['/reset', { id: 0, data_idx: 2 }]);

    const alfworld = await agentGym({
      '/create': { id: 5 },
      '/reset': {
        id: 5,
        observation: 'You are in a room.',
        available_actions: ['look'],
        task_type: 'pick/trial_1',
      },
    });
    const alf = createRemoteEnv({
      protocol: 'agentgym',
      dialect: 'alfworld',
      url: alfworld.url,
      worldType: 'Hybrid',
    });
    expect((await alf.reset({ seed: 2430 })).info.server).toEqual({ task_type: 'pick/trial_1' });
    expect(alfworld.requests[1]).toEqual(['/reset', { id: 5, game: 2430, world_type: 'Hybrid' }]);
  });

  it('reads the task number from taskId (a number or an AgentGym item id), else from the seed', () => {
    expect(agentGymIndex({ seed: 4 }, 'x')).toBe(4);
    expect(agentGymIndex({ seed: 4, taskId: '17' }, 'x')).toBe(17);
    expect(agentGymIndex({ seed: 4, taskId: 'textcraft_12' }, 'x')).toBe(12);
    expect(() => agentGymIndex({ seed: 4, taskId: 'train-3' }, 'x')).toThrow(InvalidArgumentError);
  });
});

describe('OpenEnv observations', () => {
  /** A server answering every reset and step with `observation` (`reward` and `done` for steps), recording the messages. */
  async function openEnv(observation: Record<string, unknown>, reward: unknown = null, done = false) {
    const messages: unknown[] = [];
    const server = await rawWebSocketServer((message) => {
      messages.push(message);
      const reset = message.type === 'reset';
      return {
        type: 'observation',
        data: { observation, reward: reset ? null : reward, done: !reset && done },
      };
    });
    servers.push(server);
    return { url: server.url, messages };
  }

  it('reads the text and admissible actions from the usual keys and keeps the rest as info.server', async () => {
    const { url, messages } = await openEnv(
      { prompt: 'Pick a door.', legal_actions: ['left', 'right'], turn: 1 },
      1,
      true,
    );
    const env = createRemoteEnv({ protocol: 'openenv', url });
    const first = await env.reset({ seed: 5, taskId: 'doors-2' });
    expect(first).toEqual({
      observation: 'Pick a door.',
      admissibleActions: ['left', 'right'],
      reward: 0,
      terminated: false,
      truncated: false,
      info: { won: false, valid: true, server: { turn: 1 } },
    });
    // No `won` in the observation: a finished episode with a reward above 0 is a win.
    expect(await env.step('left')).toMatchObject({
      reward: 1,
      terminated: true,
      info: { won: true, valid: true },
    });
    expect(messages).toEqual([
      { type: 'reset', data: { seed: 5, task_id: 'doors-2' } },
      { type: 'step', data: { action: 'left' } },
    ]);
  });

  it('takes the text key, the action shape and the reset data from the config', async () => {
    const { url, messages } = await openEnv({ board: 'X..', text: 'ignored' });
    const env = createRemoteEnv({
      protocol: 'openenv',
      url,
      observation: 'board',
      action: (command) => ({ message: command }),
      resetData: ({ seed }) => ({ seed, difficulty: 'easy' }),
    });
    expect((await env.reset({ seed: 1 })).observation).toBe('X..');
    expect((await env.step('b2')).info.server).toEqual({ text: 'ignored' });
    expect(messages).toEqual([
      { type: 'reset', data: { seed: 1, difficulty: 'easy' } },
      { type: 'step', data: { message: 'b2' } },
    ]);
  });

  it('maps with a function, and says so when the function returns something else', async () => {
    const { url } = await openEnv({ lines: ['a', 'b'], over: false });
    const env = createRemoteEnv({
      protocol: 'openenv',
      url,
      observation: (o) => ({
        text: (o.lines as string[]).join('\n'),
        admissibleActions: ['next'],
        won: false,
      }),
    });
    expect((await env.reset({ seed: 0 })).observation).toBe('a\nb');
    const wrong = createRemoteEnv({
      protocol: 'openenv',
      url,
      observation: () => ({ words: 'hi' }) as never,
    });
    await expect(wrong.reset({ seed: 0 })).rejects.toThrow(
      /observation function returned something that is not a RemoteObservation: text: /,
    );
  });

  it('a server-side truncation is truncated, not terminated', async () => {
    const { url } = await openEnv({ text: 'Out of time.', truncated: true, won: false }, 0, true);
    const env = createRemoteEnv({ protocol: 'openenv', url });
    await env.reset({ seed: 0 });
    expect(await env.step('wait')).toMatchObject({
      terminated: false,
      truncated: true,
      admissibleActions: [],
    });
  });

  it('derives the WebSocket URL from a base URL, and keeps a ws:// URL', () => {
    expect(webSocketUrl('http://h:8000')).toBe('ws://h:8000/ws');
    expect(webSocketUrl('https://h/envs/chess/')).toBe('wss://h/envs/chess/ws');
    expect(webSocketUrl('ws://h:8000/custom')).toBe('ws://h:8000/custom');
  });
});

describe('remoteTasks', () => {
  it('numbers the tasks of each split, with AgentGym item ids by default', async () => {
    const tasks = remoteTasks({
      envId: 'alfworld',
      splits: { train: { count: 2420 }, test: { start: 2420, count: 200 } },
    });
    expect(tasks.splits()).toEqual(['train', 'test']);
    expect(tasks.count('test')).toBe(200);
    expect(await tasks.tasks('test', { offset: 198, limit: 5 })).toEqual([
      { taskId: 'alfworld_2618', split: 'test', seed: 2618 },
      { taskId: 'alfworld_2619', split: 'test', seed: 2619 },
    ]);
    expect(() => tasks.count('valid')).toThrow(/no split "valid"; the splits are train, test/);
    expect(tasks.oracle).toBeUndefined();
  });
});
