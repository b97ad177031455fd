import { UnsolvableTaskError } from '@pilotrl/core';
import { describe, expect, it } from 'vitest';
import { babyaiPlanOf, babyaiPlanSteps, babyaiTasks, createBabyaiEnv } from './index';

describe('babyai plan steps', () => {
  it("writes the oracle's games as plans in the vocabulary, and the oracle carries out every step in order", async () => {
    const env = createBabyaiEnv();
    let planned = 0;
    let won = 0;
    for (const split of babyaiTasks.splits()) {
      for (const task of await babyaiTasks.tasks(split, { limit: 90 })) {
        const solution = await babyaiTasks.oracle(task).catch((error: unknown) => {
          if (UnsolvableTaskError.isInstance(error)) return undefined;
          throw error;
        });
        if (solution === undefined) continue;
        const { actions, plan: oraclePlan } = solution;
        const plan = babyaiPlanOf(actions);
        expect(oraclePlan).toEqual(plan);
        const opening = (await env.reset(task)).observation;
        let executed = 0;
        for (const action of actions) {
          const { observation } = await env.step(action);
          if (executed < plan.length && babyaiPlanSteps.executes(plan[executed]!, action, observation))
            executed++;
        }
        const vocabulary = new Set(
          babyaiPlanSteps.steps({ goal: task.description!, observations: [opening] }),
        );
        expect(
          plan.filter((step) => !vocabulary.has(step)),
          task.taskId,
        ).toEqual([]);
        expect(executed, task.taskId).toBe(plan.length);
        won++;
        if (plan.length > 0) planned++;
      }
    }
    // The oracle ends every game with a command that names what it does.
    expect(planned).toBe(won);
  });

  it('offers each verb about every colour and type, without view numbers', () => {
    const steps = babyaiPlanSteps.steps({ goal: 'open the purple door', observations: [] });
    expect(steps).toHaveLength(6 * 4 * 3 + 1);
    expect(steps).toContain('open the door in front of you');
    expect(steps.slice(0, 6)).toEqual([
      'go to the red door',
      'open the red door',
      'go through the red door',
      'go to the red key',
      'pick up the red key',
      'drop the red key',
    ]);
    expect(steps).toContain('open the purple door');
    expect(steps).not.toContain('open the purple ball');
  });

  it('counts no step for a refused command or another object', () => {
    const seen =
      'In front of you in this room, you can see several objects: There is a red ball 1 right in front of you 1 steps away.  The room has walls around you. You are carrying a red ball.';
    expect(babyaiPlanSteps.executes('pick up the red ball', 'pickup red ball 1', seen)).toBe(true);
    expect(babyaiPlanSteps.executes('pick up the red ball', 'pickup red box 1', seen)).toBe(false);
    expect(babyaiPlanSteps.executes('go to the red ball', 'go to red ball 2', seen)).toBe(true);
    expect(
      babyaiPlanSteps.executes(
        'go to the red ball',
        'go to red ball 2',
        'You cannot go to red ball 2, as there is no path leading to it.',
      ),
    ).toBe(false);
    expect(
      babyaiPlanSteps.executes(
        'open the red door',
        'toggle',
        'In front of you in this room, you can see several objects: There is a red open door 1 right in front of you 1 steps away.  The room has walls around you. You are not carrying anything.',
      ),
    ).toBe(true);
    expect(
      babyaiPlanSteps.executes('open the blue door', 'toggle and go through red closed door 1', seen),
    ).toBe(false);
    expect(babyaiPlanSteps.executes('fly to the moon', 'go to red ball 1', seen)).toBe(false);
  });

  it('turns a toggle after going to a shut door into opening it, and a drop into dropping what was picked up', () => {
    expect(
      babyaiPlanOf([
        'turn left',
        'go to green closed door 1',
        'toggle',
        'pickup yellow key 1',
        'move forward',
        'drop',
        'go through green open door 1',
        'turn left',
        'toggle',
      ]),
    ).toEqual([
      'go to the green door',
      'open the green door',
      'pick up the yellow key',
      'drop the yellow key',
      'go through the green door',
      'open the door in front of you',
    ]);
  });
});
