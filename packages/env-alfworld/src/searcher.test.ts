import { describe, expect, it } from 'vitest';
import { AlfworldEnv } from './env';
import { alfworldPlanOf } from './plan-steps';
import { createAlfworldSearcher } from './searcher';
import { createGeneratedTaskSource } from './task-source';

describe('the ALFWorld searcher', () => {
  it("carries out the oracle's plan from what it sees and wins, looking before it takes where the oracle went straight", async () => {
    const types = new Set<string>();
    for (const dialect of ['legacy', 'current'] as const) {
      const source = createGeneratedTaskSource({ dialect });
      const searcher = createAlfworldSearcher(() => new AlfworldEnv({ maxSteps: 100, dialect }));
      let longer = 0;
      for (const task of await source.tasks('train', {
        offset: dialect === 'legacy' ? 0 : 500,
        limit: 36,
      })) {
        const solution = await source.oracle!(task);
        const searched = await searcher.demonstrate(task, solution);
        expect(searched, task.taskId).toBeDefined();
        expect(alfworldPlanOf(searched!.actions)).toEqual(alfworldPlanOf(solution.actions));
        if (searched!.actions.length > solution.actions.length) longer += 1;
        // Replayed on a fresh env, the demonstration wins.
        const env = new AlfworldEnv({ maxSteps: 100, dialect });
        await env.reset({ seed: task.seed, taskId: task.taskId });
        let won = false;
        for (const action of searched!.actions) won = (await env.step(action)).info.won;
        expect(won, task.taskId).toBe(true);
        types.add(task.taskType!);
      }
      // Where the oracle knew the place, the searcher had to look first.
      expect(longer).toBeGreaterThan(0);
    }
    expect(types.size).toBe(6);
  });

  it('looks into unsearched places in an order an agent can know: by instance number, then by name', async () => {
    const source = createGeneratedTaskSource();
    const searcher = createAlfworldSearcher(() => new AlfworldEnv({ maxSteps: 100 }));
    let walks = 0;
    for (const task of await source.tasks('train', { limit: 12 })) {
      const searched = await searcher.demonstrate(task, await source.oracle!(task));
      // The walks of the first search, before the first object is taken.
      const firstTake = searched!.actions.findIndex((action) => action.startsWith('take '));
      const places = searched!.actions
        .slice(0, firstTake)
        .flatMap((action) => /^go to (.+)$/.exec(action)?.[1] ?? []);
      // Ascending by (number, name), once over the likely places and once over the rest.
      const key = (place: string) => `${/(\d+)$/.exec(place)![1]!.padStart(3, '0')} ${place}`;
      let descents = 0;
      for (let i = 1; i < places.length; i++) if (key(places[i]!) < key(places[i - 1]!)) descents += 1;
      expect(descents, places.join(' | ')).toBeLessThanOrEqual(1);
      walks += places.length;
    }
    expect(walks).toBeGreaterThan(12);
  });

  it("with alternativePlans carries out, on some tasks, another plan than the oracle's that also wins", async () => {
    const source = createGeneratedTaskSource();
    const searcher = createAlfworldSearcher(() => new AlfworldEnv({ maxSteps: 100 }));
    let other = 0;
    for (const task of await source.tasks('train', { limit: 40 })) {
      const solution = await source.oracle!(task);
      const searched = await searcher.demonstrate(task, solution, { alternativePlans: true });
      expect(searched, task.taskId).toBeDefined();
      const plan = alfworldPlanOf(searched!.actions);
      if (JSON.stringify(plan) === JSON.stringify(alfworldPlanOf(solution.actions))) continue;
      other += 1;
      // The same kind of steps, one receptacle swapped for another of its type.
      expect(plan.map((step) => step.replace(/ \d+$/, ''))).toEqual(
        alfworldPlanOf(solution.actions).map((step) => step.replace(/ \d+$/, '')),
      );
      const env = new AlfworldEnv({ maxSteps: 100 });
      await env.reset({ seed: task.seed, taskId: task.taskId });
      let won = false;
      for (const action of searched!.actions) won = (await env.step(action)).info.won;
      expect(won, task.taskId).toBe(true);
    }
    expect(other).toBeGreaterThan(3);
    // Drawn from the task: the same plan every time.
    const [task] = await source.tasks('train', { limit: 1 });
    const solution = await source.oracle!(task!);
    const first = await searcher.demonstrate(task!, solution, { alternativePlans: true });
    expect(await searcher.demonstrate(task!, solution, { alternativePlans: true })).toEqual(first);
  });

  it('gives no demonstration when the search does not fit its step limit', async () => {
    const source = createGeneratedTaskSource();
    const searcher = createAlfworldSearcher(() => new AlfworldEnv({ maxSteps: 100 }), { maxSteps: 1 });
    const [task] = await source.tasks('train', { limit: 1 });
    expect(await searcher.demonstrate(task!, await source.oracle!(task!))).toBeUndefined();
  });
});
