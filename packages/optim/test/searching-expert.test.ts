import { createRng } from '@pilotrl/core';
import { AlfworldEnv } from '@pilotrl/env-alfworld';
import { describe, expect, it } from 'vitest';
import { taskSource } from '../bench/rl-vs-sft/alfworld-play';
import { parseGoal, SearchingExpert } from '../bench/rl-vs-sft/searching-expert';

describe('parseGoal', () => {
  it('reads every ALFWorld task sentence form', () => {
    expect(parseGoal('put some dishsponge on garbagecan')).toEqual({
      object: 'dishsponge',
      target: 'garbagecan',
      count: 1,
      look: false,
    });
    expect(parseGoal('put a clean mug in coffeemachine.')).toMatchObject({
      object: 'mug',
      transform: 'clean',
    });
    expect(parseGoal('heat some egg and put it in diningtable')).toMatchObject({
      object: 'egg',
      target: 'diningtable',
      transform: 'heat',
    });
    expect(parseGoal('put a hot cup in microwave')).toMatchObject({ transform: 'heat' });
    expect(parseGoal('cool some pan and put it in countertop')).toMatchObject({ transform: 'cool' });
    expect(parseGoal('find two tomato and put them in countertop')).toMatchObject({
      object: 'tomato',
      count: 2,
    });
    expect(parseGoal('put two plate in diningtable')).toMatchObject({ target: 'diningtable', count: 2 });
    expect(parseGoal('look at cd under the desklamp')).toMatchObject({
      object: 'cd',
      target: 'desklamp',
      look: true,
    });
    expect(parseGoal('examine the box with the desklamp')).toMatchObject({ object: 'box', look: true });
    expect(() => parseGoal('make coffee')).toThrow(/unknown task sentence/);
  });
});

describe('SearchingExpert', () => {
  it('wins most generated tasks from observations alone, searching where the oracle walks straight', async () => {
    const tasks = await taskSource.tasks('train', { limit: 30 });
    const env = new AlfworldEnv({ maxSteps: 25 });
    let won = 0;
    let expertSteps = 0;
    let oracleSteps = 0;
    for (const task of tasks) {
      let step = await env.reset({ seed: task.seed, taskId: task.taskId });
      const expert = new SearchingExpert(step.info.task ?? '', createRng(task.taskId));
      let steps = 0;
      while (!step.terminated && !step.truncated) {
        step = await env.step(expert.act(step.observation, step.admissibleActions));
        steps++;
      }
      if (step.info.won) {
        won++;
        expertSteps += steps;
        oracleSteps += (await taskSource.oracle!(task)).actions.length;
      }
    }
    expect(won).toBeGreaterThanOrEqual(24);
    // Searching costs steps: on the same won tasks it takes longer than the oracle's solutions.
    expect(expertSteps).toBeGreaterThan(1.2 * oracleSteps);
  });

  it('rejects a command that is not admissible rather than playing it', () => {
    const expert = new SearchingExpert('put a mug in shelf', createRng(1));
    expect(() => expert.act('You are in the middle of a room.', [])).toThrow();
  });
});
