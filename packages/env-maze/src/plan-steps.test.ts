import { describe, expect, it } from 'vitest';
import { createMazeEnv, mazePlanSteps, mazeTasks } from './index';

describe('maze plan steps', () => {
  it('gives the oracle plan in the vocabulary, and the oracle carries out every step', async () => {
    const vocabulary = new Set(mazePlanSteps.steps({ goal: '', observations: [] }));
    expect(vocabulary.size).toBe(26);
    const env = createMazeEnv();
    for (const split of mazeTasks.splits()) {
      for (const task of await mazeTasks.tasks(split)) {
        const { actions, plan } = await mazeTasks.oracle(task);
        expect(plan.every((step) => vocabulary.has(step))).toBe(true);
        expect(mazePlanSteps.planOf!(actions)).toEqual(plan);
        await env.reset(task);
        let executed = 0;
        for (const action of actions) {
          const { observation } = await env.step(action);
          if (executed < plan.length && mazePlanSteps.executes(plan[executed]!, action, observation))
            executed++;
        }
        expect(executed, task.taskId).toBe(plan.length);
      }
    }
  });

  it('plans the way from (1, 1) by its turns', async () => {
    const [task] = await mazeTasks.tasks('valid_unseen', { limit: 1 });
    expect((await mazeTasks.oracle(task!)).plan).toEqual([
      'go to 1, 3',
      'go to 5, 3',
      'go to 5, 6',
      'go to 8, 6',
    ]);
  });

  it('gives no plan for commands that win from no start, and counts no step for a refused command', () => {
    expect(mazePlanSteps.planOf!(['move up', 'move up'])).toEqual([]);
    const at =
      'The goal is at position 8, 6. Your current position is at position 5, 3. There are walls to your left, below you.';
    expect(mazePlanSteps.executes('go to 5, 3', 'move down', at)).toBe(true);
    expect(mazePlanSteps.executes('go to 5, 3', 'look', at)).toBe(false);
  });
});
