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

  it('gives no demonstration when the search does not fit its step limit', async () => {
    const source = createGeneratedTaskSource();
    const searcher = createAlfworldSearcher(() => new AlfworldEnv({ maxSteps: 100 }), { maxSteps: 1 });
    const [task] = await source.tasks('train', { limit: 1 });
    expect(await searcher.demonstrate(task!, await source.oracle!(task!))).toBeUndefined();
  });
});
