// AgentGym's dialects against our server: field names, JSON types (Python floats included), integer
// ids, the 200 + {"error"} rule, reward semantics and the index → task mapping, with episodes played
// to a win by each env's oracle.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createGeneratedTaskSource } from '@pilotrl/env-alfworld';
import { babyaiTasks, createBabyaiEnv, type LevelState } from '@pilotrl/env-babyai';
import { solveFrom, startOfGame } from '@pilotrl/env-maze';
import { textcraftTasks } from '@pilotrl/env-textcraft';
import { wordleTasks } from '@pilotrl/env-wordle';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from './served-envs.testing';

let api: Awaited<ReturnType<typeof startServer>>;
beforeAll(async () => {
  api = await startServer();
});
afterAll(() => api.server.close());

describe('every dialect', () => {
  it.each([
    ['/alfworld', 'This is environment AlfWorld.'],
    ['/textcraft', 'This is environment TextCraft.'],
    ['/babyai', 'This is environment BabyAI.'],
    ['/maze', 'This is environment LMRL-Gym.'],
    ['/wordle', 'This is environment LMRL-Gym.'],
  ])('GET %s/ greets as the original', async (prefix, greeting) => {
    expect(await api.get(`${prefix}/`)).toEqual({ status: 200, json: greeting });
  });

  it('gives random integer ids, refuses unknown ids and closed ones with HTTP 200', async () => {
    const first = (await api.postJson('/babyai/create')).id as number;
    const second = (await api.postJson('/babyai/create')).id as number;
    expect(Number.isSafeInteger(first) && Number.isSafeInteger(second) && first !== second).toBe(true);
    expect(first).toBeGreaterThanOrEqual(0);
    const unknown = first === 9999 ? 9998 : 9999;
    expect(await api.post('/babyai/step', { id: unknown, action: 'turn left' })).toEqual({
      status: 200,
      text: `{"error":"The id ${unknown} is not valid."}`,
    });
    expect(await api.postJson('/babyai/close', { id: first })).toBe(true);
    const afterClose = await api.postJson('/babyai/reset', { id: first, data_idx: 0 });
    expect(afterClose).toEqual({ error: `The task with environment ${first} has been deleted.` });
  });

  it("answers a session's id only to the client that created it: to another it is not valid", async () => {
    const { id } = await api.postJson('/maze/create');
    await api.postJson('/maze/reset', { id, game: 0 });
    const notValid = { error: `The id ${id} is not valid.` };
    expect(await api.postFrom('127.0.0.2', '/maze/step', { id, action: 'move up' })).toEqual(notValid);
    expect(await api.postFrom('127.0.0.2', '/maze/close', { id })).toEqual(notValid);
    expect(await api.postJson('/maze/step', { id, action: 'move up' })).toHaveProperty('observation');
    expect(await api.postJson('/maze/close', { id })).toBe(true);
  });
});

describe('ALFWorld', () => {
  it('plays game 0 (train task 0) to a win: cut observations, float rewards, then "has finished"', async () => {
    const tasks = createGeneratedTaskSource();
    const [task] = await tasks.tasks('train', { offset: 0, limit: 1 });
    const { actions } = await tasks.oracle!(task!);
    const { id } = await api.postJson('/alfworld/create');
    const reset = await api.postJson('/alfworld/reset', { id, game: 0, world_type: 'Text' });
    expect(Object.keys(reset)).toEqual(['id', 'observation', 'available_actions', 'task_type']);
    expect(reset.observation).toMatch(/^You are in the middle of a room\./);
    expect(reset.task_type).toBe(`${task!.taskType}/${task!.taskId}`);
    const first = await api.post('/alfworld/step', { id, action: actions[0] });
    expect(first.text).toContain('"reward":0.0,');
    expect(JSON.parse(first.text).observation).not.toMatch(/^You arrive at loc/);
    let last = first;
    for (const action of actions.slice(1)) last = await api.post('/alfworld/step', { id, action });
    expect(Object.keys(JSON.parse(last.text))).toEqual([
      'observation',
      'reward',
      'available_actions',
      'done',
    ]);
    expect(last.text).toContain('"reward":1.0,');
    expect(JSON.parse(last.text).done).toBe(true);
    expect(await api.postJson('/alfworld/step', { id, action: 'look' })).toEqual({
      error: `The task with environment ${id} has finished.`,
    });
    // A reset is allowed again after done, as in the original.
    await api.postJson('/alfworld/reset', { id, game: 2420, world_type: 'Text' });
    const detail = (await api.get(`/alfworld/detail?id=${id}`)).json as Record<string, unknown>;
    expect(Object.keys(detail)).toEqual([
      'world_type',
      'game',
      'observation',
      'available_actions',
      'done',
      'reward',
      'deleted',
    ]);
    expect(detail.game).toBe(2420);
    expect((await api.get(`/alfworld/available_actions?id=${id}`)).json).toEqual(detail.available_actions);
    expect((await api.get(`/alfworld/observation?id=${id}`)).json).toBe(detail.observation);
  });

  it('refuses a world_type and a game the original does not have', async () => {
    const { id } = await api.postJson('/alfworld/create');
    expect(await api.postJson('/alfworld/reset', { id, game: 0, world_type: 'Text3D' })).toEqual({
      error: 'world_type must be one of "Text", "Embody" and "Hybrid"',
    });
    expect(await api.postJson('/alfworld/reset', { id, game: 2620, world_type: 'Text' })).toEqual({
      error: 'list index out of range',
    });
    expect(await api.postJson('/alfworld/reset', { id, game: -2621, world_type: 'Text' })).toEqual({
      error: 'list index out of range',
    });
    // The original checks world_type before the id.
    expect(await api.postJson('/alfworld/reset', { id: id + 1, game: 0, world_type: 'Text3D' })).toEqual({
      error: 'world_type must be one of "Text", "Embody" and "Hybrid"',
    });
  });

  it('plays a negative game from the end of the list, as Python indexes it', async () => {
    const { id } = await api.postJson('/alfworld/create');
    const last = await api.postJson('/alfworld/reset', { id, game: -1, world_type: 'Text' });
    const { id: other } = await api.postJson('/alfworld/create');
    const same = await api.postJson('/alfworld/reset', { id: other, game: 2619, world_type: 'Text' });
    expect({ ...same, id }).toEqual(last);
  });
});

describe('TextCraft', () => {
  it('resets at create with data_idx = id, and crafts the goal of a data_idx with the oracle', async () => {
    const created = await api.postJson('/textcraft/create', { commands: null, goal: null });
    expect(Object.keys(created)).toEqual(['id', 'observation', 'done', 'reward']);
    expect(created.observation).toMatch(/^Crafting commands:/);
    const [task] = await textcraftTasks.tasks('train', { offset: 0, limit: 1 });
    const reset = await api.postJson('/textcraft/reset', { id: created.id, data_idx: task!.seed });
    expect(reset).toMatchObject({ id: created.id, done: false, reward: 0 });
    const { actions } = await textcraftTasks.oracle(task!);
    let last: Record<string, unknown> = {};
    for (const action of actions) last = await api.postJson('/textcraft/step', { id: created.id, action });
    expect(last).toMatchObject({ reward: 1, done: true });
    expect(Object.keys(last)).toEqual(['observation', 'reward', 'done']);
    const detail = (await api.get(`/textcraft/detail?id=${created.id}`)).json;
    expect(detail).toMatchObject({ done: true, reward: 1, deleted: false });
  });
});

describe('BabyAI', () => {
  it('plays babyai_<data_idx> to a win; reward is the step reward and score their sum', async () => {
    const [task] = await babyaiTasks.tasks('train', { offset: 0, limit: 1 });
    const { actions } = await babyaiTasks.oracle(task!);
    const { id } = await api.postJson('/babyai/create');
    const reset = await api.postJson('/babyai/reset', { id, data_idx: task!.seed });
    expect(reset).toMatchObject({ reward: 0, score: 0, deleted: false, done: false });
    expect(Object.keys(reset)).toEqual(['observation', 'reward', 'score', 'deleted', 'done']);
    expect(reset.observation).toMatch(/^Your goal: .*\n[\s\S]*\nAvailable actions: \[".+"\]$/);
    let last: Record<string, number | boolean | string> = {};
    for (const action of actions) last = await api.postJson('/babyai/step', { id, action });
    expect(Object.keys(last)).toEqual(['observation', 'reward', 'score', 'done']);
    expect(last.done).toBe(true);
    expect(last.reward).toBeGreaterThan(0);
    expect(last.score).toBeGreaterThanOrEqual(last.reward as number);
    expect((await api.postJson('/babyai/step', { id, action: 'turn left' })).error).toBe(
      `The task with environment ${id} has finished.`,
    );
  });
});

describe('Maze', () => {
  it('answers reset with the description alone and sums rewards in detail', async () => {
    const { id } = await api.postJson('/maze/create');
    expect(Object.keys(await api.postJson('/maze/reset', { id, game: 10 }))).toEqual(['observation']);
    let last: Record<string, unknown> = {};
    for (const action of solveFrom(startOfGame(10))) last = await api.postJson('/maze/step', { id, action });
    expect(last).toEqual({ observation: 'Success\n', reward: 1, done: true });
    expect((await api.get(`/maze/available_actions`)).json).toEqual([
      'move left',
      'move right',
      'move up',
      'move down',
    ]);
    expect((await api.get(`/maze/detail?id=${id}`)).json).toEqual({
      error: `The task with environment ${id} has finished.`,
    });
    expect(await api.postJson('/maze/reset', { id, game: 26 })).toEqual({
      error: 'The game 26 is not valid.',
    });
  });
});

describe("the originals' error payloads, word for word", () => {
  it('Maze: game 26 and past it not valid, game 25 (the goal) the empty message of a failed assert', async () => {
    const { id } = await api.postJson('/maze/create');
    expect(await api.post('/maze/reset', { id, game: 25 })).toEqual({ status: 200, text: '{"error":""}' });
    expect(await api.post('/maze/reset', { id, game: 26 })).toEqual({
      status: 200,
      text: '{"error":"The game 26 is not valid."}',
    });
    expect(await api.postJson('/maze/reset', { id, game: 1000 })).toEqual({
      error: 'The game 1000 is not valid.',
    });
    // Python indexes the start cells from the end: -1 is game 25, -26 game 0, -27 none.
    expect(await api.postJson('/maze/reset', { id, game: -1 })).toEqual({ error: '' });
    expect(await api.postJson('/maze/reset', { id, game: -27 })).toEqual({
      error: 'list index out of range',
    });
    const zero = await api.postJson('/maze/reset', { id, game: -26 });
    expect(zero).toEqual(await api.postJson('/maze/reset', { id, game: 0 }));
    expect(zero.observation).toBe(
      'The goal is at position 8, 6. Your current position is at position 1, 1. There are walls to your left, above you, below you.',
    );
  });

  it('a step before any reset: the bare id (KeyError) on BabyAI, Maze and ALFWorld', async () => {
    for (const prefix of ['/babyai', '/maze', '/alfworld']) {
      const { id } = await api.postJson(`${prefix}/create`);
      expect(await api.postJson(`${prefix}/step`, { id, action: 'look' })).toEqual({ error: String(id) });
    }
  });

  it("BabyAI: a negative data_idx gets Gymnasium's refusal of its negative seed", async () => {
    const { id } = await api.postJson('/babyai/create');
    expect(await api.postJson('/babyai/reset', { id, data_idx: -1 })).toEqual({
      error: 'Seed must be greater or equal to zero, actual value: -1',
    });
    expect(await api.postJson('/babyai/reset', { id, data_idx: -81 })).toEqual({
      error: 'Seed must be greater or equal to zero, actual value: -3',
    });
  });

  it('every dialect: an unknown id, a finished task, a closed one', async () => {
    for (const [prefix, reset, action] of [
      ['/babyai', { data_idx: 0 }, 'turn left'],
      ['/maze', { game: 0 }, 'move up'],
      ['/wordle', { seed: 0 }, 'x y z z y'],
      ['/textcraft', { data_idx: 0 }, 'inventory'],
      ['/alfworld', { game: 0, world_type: 'Text' }, 'look'],
    ] as const) {
      const { id } = await api.postJson(`${prefix}/create`);
      const unknown = id === 1 ? 2 : 1;
      expect(await api.postJson(`${prefix}/step`, { id: unknown, action })).toEqual({
        error: `The id ${unknown} is not valid.`,
      });
      await api.postJson(`${prefix}/reset`, { id, ...reset });
      expect(await api.postJson(`${prefix}/close`, { id })).toBe(true);
      expect(await api.postJson(`${prefix}/step`, { id, action })).toEqual({
        error: `The task with environment ${id} has been deleted.`,
      });
    }
  });
});

describe('Wordle', () => {
  it('lists the vocabulary before reset, opens with the server line and wins with the solver', async () => {
    const { id } = await api.postJson('/wordle/create');
    const vocabulary = (await api.get(`/wordle/filtered_vocab?id=${id}`)).json as string[];
    expect(vocabulary.length).toBe(40);
    expect(vocabulary.every((word) => /^[a-z]{5}$/.test(word))).toBe(true);
    expect(await api.postJson('/wordle/reset', { id, seed: 4 })).toEqual({
      id,
      observation: "Let's start Wordle!",
    });
    expect((await api.post('/wordle/step', { id, action: 'x y z z y' })).text).toBe(
      '{"observation":"invalid word","reward":0.0,"done":false}',
    );
    const { id: fresh } = await api.postJson('/wordle/create');
    await api.postJson('/wordle/reset', { id: fresh, seed: 4 });
    const { actions } = await wordleTasks.oracle({ taskId: 'train-4', split: 'train', seed: 4 });
    let last: Record<string, unknown> = {};
    for (const action of actions) last = await api.postJson('/wordle/step', { id: fresh, action });
    expect(last).toEqual({ observation: 'g g g g g\n', reward: 1, done: true });
  });
});

describe('BabyAI start states beyond the grid, through the AgentGym dialect', () => {
  it('plays a held load and a key in a box at the data indices of their levels, given to the served env', async () => {
    // Minigrid's own start states (env-babyai's fixture): PutNextS7N4Carrying is AgentGym level 23,
    // KeyInBox level 26, so seed 1 of each is data_idx 1 * 40 + 22 and 1 * 40 + 25.
    const lines = readFileSync(
      join(import.meta.dirname, '../../env-babyai/test/fixtures/minigrid-held-and-boxed.jsonl'),
      'utf8',
    )
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; start: LevelState });
    const start = (id: string) => lines.find((line) => line.id === id)!.start;
    const levels = [
      { ...start('BabyAI-PutNextS7N4Carrying-v0/1'), data_idx: 62 },
      { ...start('BabyAI-KeyInBox-v0/1'), data_idx: 65 },
    ];
    const own = await startServer({
      envs: [{ envId: 'babyai', createEnv: (o) => createBabyaiEnv({ ...o, levels }), tasks: babyaiTasks }],
    });
    try {
      const { id } = await own.postJson('/babyai/create');
      const carrying = await own.postJson('/babyai/reset', { id, data_idx: 62 });
      expect(carrying.observation).toMatch(/^Your goal: put the blue key next to the blue box\n/);
      expect(carrying.observation).toContain('You are carrying a blue key.\nAvailable actions: [');
      expect(carrying.observation).toContain('"drop"');
      const boxed = await own.postJson('/babyai/reset', { id, data_idx: 65 });
      expect(boxed.observation).toMatch(/^Your goal: open the door\n/);
    } finally {
      own.server.close();
    }
  });
});
