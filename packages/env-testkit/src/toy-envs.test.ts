import type { TaskRef, TextEnv } from '@pilotrl/core';
import { describe, expect, it } from 'vitest';
import { createCorridorEnv, createKeyDoorEnv, createRecipeEnv, testkitEnvs } from './index';
import { checkEnv } from './vitest';

for (const { create, tasks } of testkitEnvs) {
  checkEnv(() => create(), {
    resets: [{ seed: 0 }, { seed: 7 }, { seed: 3, taskId: 'valid_unseen-3' }],
    stepLimit: { maxSteps: 4, create: () => create({ maxSteps: 4 }) },
    taskSource: tasks,
  });
}

describe('toy envs', () => {
  it('vary their layout and task with the seed', async () => {
    for (const { create } of testkitEnvs) {
      const env = create();
      const tasks = new Set<string>();
      for (let seed = 0; seed < 20; seed++) tasks.add((await env.reset({ seed })).observation);
      expect(tasks.size).toBeGreaterThan(10);
    }
  });

  it('offer several admissible actions and tell the task in info.task', async () => {
    for (const { create } of testkitEnvs) {
      const first = await create().reset({ seed: 11 });
      expect(first.admissibleActions.length).toBeGreaterThanOrEqual(3);
      expect(first.info.task).toMatch(/^Your task is to: /);
      expect(first.observation.startsWith(first.info.task!)).toBe(true);
    }
  });

  it('keep valid_unseen vocabulary out of train', async () => {
    const unseenWords = /\b(grey|pink|brown|teal|safe|locker|crate|trunk|mango|pepper|spinach|lemon)\b/;
    const firstObservations = async (create: () => TextEnv, tasks: TaskRef[]) => {
      const env = create();
      return Promise.all(tasks.map(async (t) => (await env.reset(t)).observation));
    };
    for (const { create, tasks } of testkitEnvs) {
      const train = await firstObservations(create, await tasks.tasks('train', { limit: 300 }));
      const unseen = await firstObservations(create, await tasks.tasks('valid_unseen', { limit: 20 }));
      expect(train.some((text) => unseenWords.test(text))).toBe(false);
      expect(unseen.filter((text) => unseenWords.test(text)).length).toBeGreaterThan(10);
    }
  });

  it('solve the corridor only by stopping in the named room', async () => {
    const env = createCorridorEnv();
    const first = await env.reset({ seed: 0, taskId: 'train-5' });
    const wrong = await env.step('stop');
    expect(first.info.won).toBe(false);
    expect(wrong).toMatchObject({ terminated: true, reward: 0, info: { won: false, valid: true } });
  });

  it('refuse a wrong key in key-door without ending the episode', async () => {
    const env = createKeyDoorEnv();
    const solution = await testkitEnvs[1]!.tasks.oracle({ taskId: 'train-2', split: 'train', seed: 2 });
    let result = await env.reset({ seed: 2, taskId: 'train-2' });
    const container = solution.actions[0]!.replace('open ', '');
    const other = result.admissibleActions.find((a) => a.startsWith('open ') && !a.endsWith(container))!;
    result = await env.step(other);
    const take = result.admissibleActions.find((a) => a.startsWith('take '))!;
    result = await env.step(take);
    result = await env.step(result.admissibleActions.find((a) => a.startsWith('unlock '))!);
    expect(result.observation).toMatch(/does not fit/);
    expect(result).toMatchObject({ terminated: false, info: { valid: true } });
  });

  it('ruin the recipe when the bowl holds the wrong ingredients', async () => {
    const env = createRecipeEnv();
    const solution = await testkitEnvs[2]!.tasks.oracle({ taskId: 'train-4', split: 'train', seed: 4 });
    await env.reset({ seed: 4, taskId: 'train-4' });
    await env.step(solution.actions[0]!);
    await env.step(solution.actions[2]!);
    const result = await env.step('mix bowl');
    expect(result).toMatchObject({ terminated: true, reward: 0, info: { won: false } });
  });

  it('reject unknown task ids and splits with a message naming the valid forms', async () => {
    await expect(createRecipeEnv().reset({ seed: 0, taskId: 'test-1' })).rejects.toThrow(/train-12/);
    await expect(testkitEnvs[0]!.tasks.tasks('test')).rejects.toThrow(/valid_unseen/);
    expect(() => createRecipeEnv({ maxSteps: 0 } as never)).toThrow(/maxSteps/);
  });

  it('are listed by id, each with a factory and a task source of that id', () => {
    expect(testkitEnvs.map((e) => e.envId)).toEqual([
      'testkit/corridor',
      'testkit/key-door',
      'testkit/recipe',
    ]);
    for (const { envId, create, tasks } of testkitEnvs) {
      expect(create().envId).toBe(envId);
      expect(tasks.envId).toBe(envId);
    }
  });
});
