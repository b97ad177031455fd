import { describe, expect, it } from 'vitest';
import { AlfworldEnv } from './env';
import { alfworldPlanOf, alfworldPlanSteps } from './plan-steps';
import { createGeneratedTaskSource } from './task-source';

const taskSource = createGeneratedTaskSource();

describe('the ALFWorld plan-step vocabulary', () => {
  it("expresses the oracle's plan from the opening observation, and the oracle's play carries out every step in order", async () => {
    const types = new Set<string>();
    for (const dialect of ['legacy', 'current'] as const) {
      const source = createGeneratedTaskSource({ dialect });
      const env = new AlfworldEnv({ maxSteps: 50, dialect });
      for (const task of await source.tasks('train', { offset: dialect === 'legacy' ? 0 : 500, limit: 36 })) {
        const opening = await env.reset({ seed: task.seed, taskId: task.taskId });
        const { actions } = await source.oracle!(task);
        const plan = alfworldPlanOf(actions);
        expect(plan.length).toBeGreaterThan(0);
        const vocabulary = new Set(
          alfworldPlanSteps.steps({ goal: opening.info.task!, observations: [opening.observation] }),
        );
        for (const step of plan) expect(vocabulary, `${task.taskId}: ${step}`).toContain(step);
        let executed = 0;
        for (const action of actions) {
          const step = await env.step(action);
          if (
            executed < plan.length &&
            alfworldPlanSteps.executes(plan[executed]!, action, step.observation)
          ) {
            executed += 1;
          }
        }
        expect(executed, task.taskId).toBe(plan.length);
        types.add(task.taskType!);
      }
    }
    expect(types.size).toBe(6);
  });

  it('offers alternative plans at other receptacles of the same type, each of which wins', async () => {
    const source = createGeneratedTaskSource();
    let offered = 0;
    for (const task of await source.tasks('train', { limit: 24 })) {
      const env = new AlfworldEnv({ maxSteps: 50 });
      const opening = await env.reset({ seed: task.seed, taskId: task.taskId });
      const { actions } = await source.oracle!(task);
      const plan = alfworldPlanOf(actions);
      const input = { goal: opening.info.task!, observations: [opening.observation] };
      const vocabulary = new Set(alfworldPlanSteps.steps(input));
      for (const alternative of alfworldPlanSteps.alternatives!(plan, input)) {
        offered += 1;
        expect(alternative).not.toEqual(plan);
        for (const step of alternative) expect(vocabulary).toContain(step);
        // The swap, applied to the oracle's commands (opening the other receptacle where it is
        // closed), wins the game.
        const index = alternative.findIndex((step, i) => step !== plan[i]);
        const from = / (?:in|with) (.+)$/.exec(plan[index]!)![1]!;
        const to = / (?:in|with) (.+)$/.exec(alternative[index]!)![1]!;
        await env.reset({ seed: task.seed, taskId: task.taskId });
        let won = false;
        for (const action of actions) {
          const step = await env.step(action.replace(new RegExp(`${from}$`), to));
          won = step.info.won;
          if (step.admissibleActions?.includes(`open ${to}`)) await env.step(`open ${to}`);
        }
        expect(won, `${task.taskId}: ${from} → ${to}`).toBe(true);
      }
    }
    expect(offered).toBeGreaterThan(0);
  });

  it('grows with the object types seen, and a failed command carries out nothing', async () => {
    const [task] = await taskSource.tasks('train', { limit: 1 });
    const env = new AlfworldEnv();
    const opening = await env.reset({ seed: task!.seed, taskId: task!.taskId });
    const goal = opening.info.task!;
    const first = alfworldPlanSteps.steps({ goal, observations: [opening.observation] });
    const later = alfworldPlanSteps.steps({
      goal,
      observations: [opening.observation, 'On the countertop 1, you see a zucchini 3, and a apple 1.'],
    });
    expect(later.length).toBeGreaterThan(first.length);
    expect(later).toContain('take zucchini');
    expect(first.filter((s) => s.includes('zucchini'))).toHaveLength(0);
    expect(
      alfworldPlanSteps.executes('take apple', 'take apple 1 from countertop 1', 'Nothing happens.'),
    ).toBe(false);
    // A take step names no place: the object is taken from wherever it turned up.
    for (const receptacle of ['countertop 1', 'fridge 2']) {
      expect(
        alfworldPlanSteps.executes(
          'take apple',
          `take apple 3 from ${receptacle}`,
          `You pick up the apple 3 from the ${receptacle}.`,
        ),
      ).toBe(true);
    }
    expect(
      alfworldPlanSteps.executes(
        'take apple',
        'take applesauce 1 from countertop 1',
        'You pick up the applesauce 1 from the countertop 1.',
      ),
    ).toBe(false);
    expect(alfworldPlanOf(['go to fridge 2', 'open fridge 2', 'take apple 3 from fridge 2'])).toEqual([
      'take apple',
    ]);
    expect(
      alfworldPlanSteps.executes(
        'put apple in fridge 1',
        'move apple 1 to fridge 1',
        'You move the apple 1 to the fridge 1.',
      ),
    ).toBe(true);
    expect(alfworldPlanSteps.executes('fly away', 'look', 'You are in the middle of a room.')).toBe(false);
  });
});
