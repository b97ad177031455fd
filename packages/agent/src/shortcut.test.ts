import {
  AlfworldEnv,
  createGeneratedTaskSource,
  goalSentence,
  hindsightGoal,
  reaches,
} from '@pilotrl/env-alfworld';
import { describe, expect, it } from 'vitest';
import { replay, shortcut } from './shortcut';

const taskSource = createGeneratedTaskSource();

const env = new AlfworldEnv({ maxSteps: 50 });

describe('shortcut', () => {
  it("removes detours from wins: what is left still wins and is no longer than the oracle's play", async () => {
    for (const task of await taskSource.tasks('train', { limit: 8 })) {
      const oracle = (await taskSource.oracle!(task)).actions;
      const first = await env.reset({ seed: task.seed, taskId: task.taskId });
      const detours = first.admissibleActions
        .filter((a) => a.startsWith('go to ') && a !== oracle[0])
        .slice(-2);
      const wandering = [...detours, oracle[0]!, ...[...detours].reverse(), ...oracle];
      expect((await replay(env, task, wandering)).reachedAfter).toBe(wandering.length);

      const cut = await shortcut(env, task, wandering);
      expect(cut.length).toBeLessThanOrEqual(oracle.length);
      expect((await replay(env, task, cut)).reachedAfter).toBe(cut.length);
    }
  });

  it('removes two detours that can only go together', async () => {
    const [task] = await taskSource.tasks('train', { offset: 100_010, limit: 1 });
    const won = [
      'go to garbagecan 1',
      'take potato 1 from garbagecan 1',
      'go to fridge 1',
      'cool potato 1 with fridge 1',
      // Puts the potato down and fetches an apple: neither half of this detour can go alone.
      'go to countertop 1',
      'put potato 1 in/on countertop 1',
      'go to microwave 1',
      'open microwave 1',
      'take apple 1 from microwave 1',
      'go to fridge 1',
      'open fridge 1',
      'put apple 1 in/on fridge 1',
      'go to countertop 1',
      'take potato 1 from countertop 1',
      'go to fridge 1',
      'put potato 1 in/on fridge 1',
    ];
    expect((await env.reset({ seed: task!.seed, taskId: task!.taskId })).info.task).toBe(
      'cool some potato and put it in fridge',
    );
    expect(await shortcut(env, task!, won)).toEqual([
      'go to garbagecan 1',
      'take potato 1 from garbagecan 1',
      'go to fridge 1',
      'cool potato 1 with fridge 1',
      'open fridge 1',
      'put potato 1 in/on fridge 1',
    ]);
  });

  it('says where a replay got stuck, and refuses commands that do not win', async () => {
    const [task] = await taskSource.tasks('train', { limit: 1 });
    const oracle = (await taskSource.oracle!(task!)).actions;
    expect(await replay(env, task!, [oracle[0]!, 'fly to the moon', ...oracle.slice(1)])).toEqual({
      reachedAfter: undefined,
      stuckAt: 1,
    });
    expect(await replay(env, task!, oracle.slice(0, -1))).toEqual({
      reachedAfter: undefined,
      stuckAt: oracle.length - 1,
    });
    await expect(shortcut(env, task!, oracle.slice(0, -1))).rejects.toThrow(/do not replay to the goal/);
  });

  describe('with hindsight goals', () => {
    it('turns a lost episode into a shortcut demonstration of the goal it did reach', async () => {
      const [task] = await taskSource.tasks('train', { offset: 100_004, limit: 1 });
      const first = await env.reset({ seed: task!.seed, taskId: task!.taskId });
      expect(first.info.task).toBe('put a hot tomato in microwave');
      // Heats the tomato but puts it in the garbage can, after a detour: lost as the task goes.
      const lost = [
        'go to countertop 2',
        'take tomato 2 from countertop 2',
        'go to cabinet 1',
        'go to microwave 1',
        'heat tomato 2 with microwave 1',
        'go to garbagecan 1',
        'put tomato 2 in/on garbagecan 1',
        'go to cabinet 2',
      ];
      expect((await replay(env, task!, lost)).reachedAfter).toBeUndefined();
      const { goal, reachedAfter } = hindsightGoal(lost)!;
      expect(goal).toEqual({ type: 'pick_heat_then_place_in_recep', obj: 'tomato', recep: 'garbagecan' });
      expect(reachedAfter).toBe(7);
      expect(goalSentence(goal, 1)).toBe('heat some tomato and put it in garbagecan');

      const cut = await shortcut(env, task!, lost, reaches(goal));
      expect(cut).toEqual([
        'go to countertop 2',
        'take tomato 2 from countertop 2',
        'go to microwave 1',
        'heat tomato 2 with microwave 1',
        'go to garbagecan 1',
        'put tomato 2 in/on garbagecan 1',
      ]);
    });
  });
});
