import { describe, expect, it } from 'vitest';
import { AlfworldEnv } from './env';
import { goalSentence, hindsightGoal, reaches } from './hindsight-goal';
import { createGeneratedTaskSource } from './task-source';

const taskSource = createGeneratedTaskSource();

const env = new AlfworldEnv({ maxSteps: 50 });

describe('hindsight goals', () => {
  it("names the goal of the oracle's play in the task's own sentence, and where it was reached", async () => {
    const types = new Set<string>();
    for (const task of await taskSource.tasks('train', { limit: 40 })) {
      const sentence = (await env.reset({ seed: task.seed, taskId: task.taskId })).info.task;
      const oracle = (await taskSource.oracle!(task)).actions;
      const found = hindsightGoal(oracle)!;
      types.add(task.taskType!);
      if (task.taskType === 'pick_two_obj_and_place') {
        // The first of the two puts already reaches "put a <obj> in <recep>".
        expect(found.goal.type).toBe('pick_and_place_simple');
        expect(found.reachedAfter).toBeLessThan(oracle.length);
        expect(sentence).toContain(` ${found.goal.obj} `);
      } else {
        expect(found.goal.type).toBe(task.taskType);
        expect([goalSentence(found.goal, 0), goalSentence(found.goal, 1)]).toContain(sentence);
        expect(found.reachedAfter).toBe(oracle.length);
      }
    }
    expect(types.size).toBe(6);
  });

  it('asks for what the goal needs: a treatment, the same types, an object held under the lamp', () => {
    const heated = [
      'take apple 1 from countertop 1',
      'heat apple 1 with microwave 1',
      'put apple 1 in/on sinkbasin 1',
    ];
    const noState = { obj: 'apple', recep: 'sinkbasin' };
    const reached = (goal: Parameters<typeof reaches>[0], actions: string[]) =>
      reaches(goal)(undefined as never, actions);
    expect(reached({ type: 'pick_heat_then_place_in_recep', ...noState }, heated)).toBe(true);
    expect(reached({ type: 'pick_and_place_simple', ...noState }, heated)).toBe(true);
    expect(reached({ type: 'pick_cool_then_place_in_recep', ...noState }, heated)).toBe(false);
    expect(reached({ type: 'pick_and_place_simple', obj: 'apple', recep: 'countertop' }, heated)).toBe(false);
    // Cooling undoes heating; a put of the other apple is not a put of the heated one.
    const cooled = [...heated.slice(0, 2), 'cool apple 1 with fridge 1', 'put apple 1 in/on sinkbasin 1'];
    expect(hindsightGoal(cooled)!.goal.type).toBe('pick_cool_then_place_in_recep');
    const other = [...heated.slice(0, 2), 'put apple 1 in/on countertop 1', 'take apple 2 from countertop 1'];
    expect(
      reached({ type: 'pick_heat_then_place_in_recep', ...noState }, [
        ...other,
        'put apple 2 in/on sinkbasin 1',
      ]),
    ).toBe(false);

    // Putting an object back into the kind of receptacle it came from reaches nothing new.
    const back = ['take vase 1 from shelf 1', 'put vase 1 in/on shelf 2'];
    expect(hindsightGoal(back)).toBeUndefined();
    expect(hindsightGoal([...back, 'take vase 1 from shelf 2', 'put vase 1 in/on sofa 1'])).toEqual({
      goal: { type: 'pick_and_place_simple', obj: 'vase', recep: 'sofa' },
      reachedAfter: 4,
    });

    expect(hindsightGoal(['go to desk 1', 'use desklamp 1'])).toBeUndefined();
    expect(hindsightGoal(['go to desk 1', 'take book 2 from desk 1', 'use desklamp 1'])).toEqual({
      goal: { type: 'look_at_obj_in_light', obj: 'book', toggle: 'desklamp' },
      reachedAfter: 3,
    });
    expect(hindsightGoal(['go to desk 1', 'take book 2 from desk 1', 'examine book 2'])).toBeUndefined();
  });
});
