import { createReActAgent, createVectorEnv } from '@pilotrl/agent';
import {
  ALFWORLD_ENV_ID,
  AlfworldEnv,
  alfworldStateView,
  createGeneratedTaskSource,
} from '@pilotrl/env-alfworld';
import { describe, expect, it } from 'vitest';
import { replayWhole } from './demonstrations';

describe('replaying a whole script for imitation', () => {
  const tasks = createGeneratedTaskSource();
  const agent = createReActAgent(
    { name: 'none', version: 0, generate: async () => [] },
    { view: alfworldStateView, contextTokens: 100_000 },
  );
  const vectorEnv = () => createVectorEnv(() => new AlfworldEnv({ maxSteps: 40 }), { size: 1 });

  it('gives the replay of a script played to its end, and nothing for one its episode cuts short', async () => {
    const [task] = await tasks.tasks('train', { limit: 1 });
    const { actions } = await tasks.oracle!(task!);
    const whole = await replayWhole(agent, vectorEnv(), ALFWORLD_ENV_ID, {
      task: task!,
      commands: actions,
      goal: null,
    });
    expect(whole?.won).toBe(true);
    expect(whole?.examples).toHaveLength(actions.length);
    const cut = await replayWhole(agent, vectorEnv(), ALFWORLD_ENV_ID, {
      task: task!,
      commands: [...actions, 'look'],
      goal: null,
    });
    expect(cut).toBeUndefined();
  });

  it('still fails on a command that is not admissible', async () => {
    const [task] = await tasks.tasks('train', { limit: 1 });
    await expect(
      replayWhole(agent, vectorEnv(), ALFWORLD_ENV_ID, {
        task: task!,
        commands: ['fly to the moon'],
        goal: null,
      }),
    ).rejects.toThrow(/not admissible/);
  });
});
