import { createRng } from '@pilotrl/core';
import { describe, expect, it } from 'vitest';
import { parseConfig } from './config';
import { presets } from './presets';
import { runEnvsFor } from './run-envs';
import { drawTrainingTasks } from './stage-rollout';

describe('training tasks of a stage', () => {
  // BabyAI's train split holds 3 tasks its oracle proves unsolvable (GoToImpUnlock seeds 6, 14, 35).
  const [babyai] = runEnvsFor(parseConfig(presets['babyai-quick']));
  const unsolvable = ['train-276', 'train-284', 'train-305'];

  it('leaves out the tasks the oracle cannot solve when the stage follows its plans', async () => {
    const followed = await drawTrainingTasks(babyai!, createRng(1), 810, true);
    expect(followed).toHaveLength(807);
    expect(followed.filter((task) => unsolvable.includes(task.taskId))).toEqual([]);
  });

  it('plays every task when it does not', async () => {
    const drawn = await drawTrainingTasks(babyai!, createRng(1), 810, false);
    expect(drawn).toHaveLength(810);
  });
});
