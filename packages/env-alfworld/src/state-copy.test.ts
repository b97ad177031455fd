import { checkStateCopies } from '@pilotrl/env-testkit';
import { describe, expect, it } from 'vitest';
import { createAlfworldEnv } from './env';
import { createGeneratedTaskSource } from './task-source';

describe('alfworld state copies', () => {
  it('a copy has the future of its original, and stepping it leaves the original alone', async () => {
    const tasks = await createGeneratedTaskSource().tasks('valid_seen', { limit: 2 });
    await checkStateCopies(() => createAlfworldEnv(), {
      resets: tasks.map((task) => ({ seed: task.seed, taskId: task.taskId })),
      stepsBeforeCopy: 5,
      stepsAfterCopy: 8,
    });
  });

  it('a copy plays the oracle solution to a win from where the original stood', async () => {
    const source = createGeneratedTaskSource();
    const [task] = await source.tasks('valid_seen', { limit: 1 });
    const { actions } = await source.oracle!(task!);
    const original = createAlfworldEnv();
    await original.reset({ seed: task!.seed, taskId: task!.taskId });
    const half = Math.floor(actions.length / 2);
    for (const action of actions.slice(0, half)) await original.step(action);
    const copy = await original.copy();
    let last = await copy.step(actions[half]!);
    for (const action of actions.slice(half + 1)) last = await copy.step(action);
    expect(last.info.won).toBe(true);
    const untouched = await original.step('inventory');
    expect(untouched.info.won).toBe(false);
  });

  it('copying before reset is an error', async () => {
    await expect(createAlfworldEnv().copy()).rejects.toThrow(/before reset/);
  });
});
