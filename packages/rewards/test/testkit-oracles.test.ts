// The oracle's own actions must fully adhere to the oracle's plan, and the oracle's plan must get
// top marks from the reference judge, on every testkit env; a shuffled plan must score lower.
import type { Episode } from '@pilotrl/core';
import { corridorTasks, keyDoorTasks, recipeTasks } from '@pilotrl/env-testkit';
import { episodeRecord, planRevision, turnRecord } from '@pilotrl/env-testkit/test';
import { describe, expect, it } from 'vitest';
import { createPlanAdherenceReward } from '../src/plan-adherence';
import { createReferenceJudge } from '../src/reference-judge';

const sources = [corridorTasks, keyDoorTasks, recipeTasks];

function oracleEpisode(taskId: string, actions: string[], plan: string[]): Episode {
  return episodeRecord([], {
    id: taskId,
    envId: 'testkit',
    taskId,
    split: 'valid_seen',
    seed: 0,
    groupId: taskId,
    task: '',
    initialObservation: '',
    turns: actions.map((action, index) => turnRecord(index, action, { observation: '', generations: [] })),
    planHistory: [planRevision(plan, 'oracle')],
    won: true,
    terminated: true,
    envReturn: 1,
  });
}

describe.each(sources.map((source) => [source.envId, source] as const))('oracles of %s', (_id, source) => {
  it('adhere fully to their own plans, which the reference judge scores 5/5/5', async () => {
    const tasks = await source.tasks('valid_seen', { limit: 20 });
    const adherence = createPlanAdherenceReward();
    const judge = createReferenceJudge();
    for (const task of tasks) {
      const oracle = await source.oracle!(task);
      const episode = oracleEpisode(task.taskId, oracle.actions, oracle.plan);
      expect(await adherence.compute(episode), task.taskId).toEqual({ plan_adherence: 1 });
      const [verdict] = await judge.judge([
        {
          task: task.description ?? '',
          plan: oracle.plan,
          reference: { plan: oracle.plan, actions: oracle.actions },
        },
      ]);
      expect(
        [verdict!.correctness.score, verdict!.followability.score, verdict!.standardization.score],
        task.taskId,
      ).toEqual([5, 5, 5]);
    }
  });
});

describe('plans that differ from the oracle', () => {
  it('score lower on correctness when steps are missing', async () => {
    const [task] = await keyDoorTasks.tasks('valid_seen', { limit: 1 });
    const oracle = await keyDoorTasks.oracle!(task!);
    const [verdict] = await createReferenceJudge().judge([
      {
        task: task!.description ?? '',
        plan: [oracle.plan.at(-1)!],
        reference: { plan: oracle.plan, actions: oracle.actions },
      },
    ]);
    expect(verdict!.correctness.score).toBeLessThanOrEqual(3);
  });
});
