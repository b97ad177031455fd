import { ConfigError, wilsonInterval } from '@pilotrl/core';
import {
  CORRIDOR_ENV_ID,
  corridorTasks,
  createCorridorEnv,
  createRecipeEnv,
  recipeTasks,
} from '@pilotrl/env-testkit';
import { describe, expect, it } from 'vitest';
import { createExpert } from '../test/expert-policy';
import { createReActAgent } from './agent';
import { evaluate, summariseEpisodes } from './evaluate';
import { rollout } from './rollout';
import { createVectorEnv } from './vector-env';

describe('evaluate', () => {
  it('reports success with its interval, steps, format errors and success per task type', async () => {
    const tasks = await corridorTasks.tasks('valid_seen', { limit: 6 });
    // The expert fumbles its format on the first turn of tasks 0, 2 and 4 and gives up there.
    const fumbled = new Set(tasks.filter((_, index) => index % 2 === 0).map((task) => task.taskId));
    const expert = await createExpert(corridorTasks, createCorridorEnv, tasks, {
      edit: (reply, { taskId, step }) =>
        fumbled.has(taskId) && step === 0 ? reply.replace('<action>', '') : reply,
    });
    const agent = createReActAgent(expert.policy, { formatError: { mode: 'terminate' } });
    const report = await evaluate(
      agent,
      { taskSource: corridorTasks, vectorEnv: createVectorEnv(createCorridorEnv, { size: 4 }) },
      'valid_seen',
      { limit: 6 },
    );
    expect(report.episodes).toBe(6);
    expect(report.successes).toBe(3);
    expect(report.successRate).toBe(0.5);
    const { low, high } = wilsonInterval(3, 6);
    expect(report.ci95).toEqual({ low, high });
    expect(report.episodesWithFormatErrors).toBe(0.5);
    const turns = report.episodeRecords.reduce((sum, episode) => sum + episode.turns.length, 0);
    expect(report.formatErrorRate).toBeCloseTo(3 / turns, 10);
    expect(report.meanSteps).toBeCloseTo(turns / 6, 10);
    const wonSteps = report.episodeRecords.filter((e) => e.won).map((e) => e.turns.length);
    expect(report.meanStepsWon).toBeCloseTo(wonSteps.reduce((a, b) => a + b, 0) / 3, 10);
    expect(Object.keys(report.byTaskType)).toEqual(['corridor']);
    expect(report.byTaskType.corridor!.successes).toBe(3);
  });

  it('splits success by task type', async () => {
    const corridor = await rollout(
      createReActAgent(
        (
          await createExpert(
            corridorTasks,
            createCorridorEnv,
            await corridorTasks.tasks('train', { limit: 2 }),
          )
        ).policy,
      ),
      createVectorEnv(createCorridorEnv, { size: 2 }),
      { envId: CORRIDOR_ENV_ID, tasks: await corridorTasks.tasks('train', { limit: 2 }) },
    );
    const recipeList = await recipeTasks.tasks('train', { limit: 1 });
    const lost = await rollout(
      createReActAgent((await createExpert(recipeTasks, createRecipeEnv, recipeList)).policy, {
        maxTurns: 1,
      }),
      createVectorEnv(createRecipeEnv, { size: 1 }),
      { envId: 'testkit/recipe', tasks: recipeList },
    );
    const summary = summariseEpisodes([...corridor, ...lost]);
    expect(summary.byTaskType.corridor).toMatchObject({ episodes: 2, successes: 2, successRate: 1 });
    const recipeType = lost[0]!.taskType!;
    expect(summary.byTaskType[recipeType]).toMatchObject({ episodes: 1, successes: 0, successRate: 0 });
  });

  it('refuses an unknown split', async () => {
    const expert = await createExpert(corridorTasks, createCorridorEnv, []);
    await expect(
      evaluate(
        createReActAgent(expert.policy),
        { taskSource: corridorTasks, vectorEnv: createVectorEnv(createCorridorEnv, { size: 1 }) },
        'test',
      ),
    ).rejects.toSatisfy(
      (error) => ConfigError.isInstance(error) && /valid_unseen/.test((error as Error).message),
    );
  });
});
