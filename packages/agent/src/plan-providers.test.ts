import { InvalidArgumentError, type TaskSource } from '@pilotrl/core';
import { keyDoorTasks } from '@pilotrl/env-testkit';
import { describe, expect, it } from 'vitest';
import { fixedPlanProvider, oraclePlanProvider } from './plan-providers';

describe('plan providers', () => {
  it('gives the oracle plan of a task', async () => {
    const [task] = await keyDoorTasks.tasks('valid_seen', { limit: 1 });
    const plans = await oraclePlanProvider(keyDoorTasks)({
      task: task!,
      goal: '',
      initialObservation: '',
      admissibleActions: [],
    });
    expect(plans).toEqual([(await keyDoorTasks.oracle(task!)).plan]);
  });

  it('offers the oracle plan among alternatives, at most `candidates`, in an order fixed by the task', async () => {
    const tasks = await keyDoorTasks.tasks('valid_seen', { limit: 6 });
    const provider = oraclePlanProvider(keyDoorTasks, {
      candidates: 3,
      alternatives: (plan) => [1, 2, 3, 4].map((n) => [...plan, `variant ${n}`]),
    });
    const positions = new Set<number>();
    for (const task of tasks) {
      const input = { task, goal: '', initialObservation: '', admissibleActions: [] };
      const plans = await provider(input);
      const oracle = (await keyDoorTasks.oracle(task)).plan;
      expect(plans).toHaveLength(3);
      expect(plans).toContainEqual(oracle);
      expect(await provider(input)).toEqual(plans);
      positions.add(plans.findIndex((plan) => plan.join() === oracle.join()));
    }
    // The oracle's plan is not always in the same place, so its position teaches nothing.
    expect(positions.size).toBeGreaterThan(1);
    expect(() => oraclePlanProvider(keyDoorTasks, { candidates: 0 })).toThrow(InvalidArgumentError);
  });

  it('refuses a task source without an oracle', () => {
    const { oracle: _oracle, ...withoutOracle } = keyDoorTasks;
    const source: TaskSource = {
      ...withoutOracle,
      splits: () => keyDoorTasks.splits(),
      count: (split) => keyDoorTasks.count(split),
      tasks: (split, range) => keyDoorTasks.tasks(split, range),
    };
    expect(() => oraclePlanProvider(source)).toThrow(/has no oracle/);
  });

  it('gives fixed plans by task id and names a missing one', async () => {
    const provider = fixedPlanProvider({ 'train-1': [['a', 'b'], ['c']] });
    const input = { goal: '', initialObservation: '', admissibleActions: [] };
    expect(await provider({ ...input, task: { taskId: 'train-1', split: 'train', seed: 1 } })).toEqual([
      ['a', 'b'],
      ['c'],
    ]);
    await expect(
      provider({ ...input, task: { taskId: 'train-2', split: 'train', seed: 2 } }),
    ).rejects.toThrow(/no plan was given for task "train-2"/);
    expect(() => fixedPlanProvider({ x: [[]] })).toThrow(InvalidArgumentError);
  });
});
