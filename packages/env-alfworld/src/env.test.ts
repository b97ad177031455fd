import { createRng } from '@pilotrl/core';
import { checkEnv } from '@pilotrl/env-testkit/vitest';
import { describe, expect, it } from 'vitest';
import { AlfworldEnv } from './env';
import { createGeneratedTaskSource } from './task-source';

checkEnv(() => new AlfworldEnv(), {
  resets: [{ seed: 0 }, { seed: 7 }, { seed: 0, taskId: 'gen/10/3' }],
  stepLimit: { maxSteps: 6, create: () => new AlfworldEnv({ maxSteps: 6 }) },
  taskSource: createGeneratedTaskSource(),
  tasksPerSplit: 2,
});

describe('AlfworldEnv', () => {
  it('plays the oracle of a generated task to a win with reward 1', async () => {
    const source = createGeneratedTaskSource({ dialect: 'current' });
    const [task] = await source.tasks('valid_unseen', { offset: 5, limit: 1 });
    const env = new AlfworldEnv({ dialect: 'current' });
    const first = await env.reset({ seed: task!.seed, taskId: task!.taskId });
    expect(first.observation.startsWith('-= Welcome to TextWorld, ALFRED! =-\n\n')).toBe(true);
    expect(first.info.task).toBe(task!.description);
    const { actions } = await source.oracle!(task!);
    let last = first;
    for (const action of actions) last = await env.step(action);
    expect(last.terminated).toBe(true);
    expect(last.reward).toBe(1);
    expect(last.info.won).toBe(true);
  });

  it('answers anything inadmissible with "Nothing happens." and counts it toward the limit', async () => {
    const env = new AlfworldEnv({ maxSteps: 3 });
    await env.reset({ seed: 1 });
    const think = await env.step('think: where could the mug be?');
    expect(think.observation).toBe('Nothing happens.');
    expect(think.info.valid).toBe(false);
    await env.step('look');
    const third = await env.step('Look');
    expect(third.truncated).toBe(true);
    expect(third.terminated).toBe(false);
  });

  it('gives the same episode for the same seed', async () => {
    const play = async () => {
      const env = new AlfworldEnv();
      const rng = createRng(5);
      const out = [(await env.reset({ seed: 12 })).observation];
      for (let i = 0; i < 20; i++) {
        const actions = (await env.step('look')).admissibleActions;
        out.push((await env.step(rng.pick(actions))).observation);
      }
      return out;
    };
    expect(await play()).toEqual(await play());
  });
});
