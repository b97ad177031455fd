import { InvalidArgumentError, NotFoundError } from '@pilotrl/core';
import { checkEnv } from '@pilotrl/env-testkit/vitest';
import { describe, expect, it } from 'vitest';
import {
  createMazeEnv,
  MAZE_ACTIONS,
  MAZE_FIRST_OBSERVATION_PROMPT,
  mazeSplitGames,
  mazeTasks,
} from './index';

checkEnv(() => createMazeEnv(), {
  resets: [{ seed: 0 }, { seed: 17 }, { seed: 3, taskId: 'valid_unseen-3' }],
  stepLimit: { maxSteps: 4, create: () => createMazeEnv({ maxSteps: 4 }) },
  taskSource: mazeTasks,
  tasksPerSplit: 15,
});

checkEnv(() => createMazeEnv({ dialect: 'agenttraj', opening: 'server' }), {
  name: 'maze (agenttraj dialect)',
  resets: [{ seed: 1 }, { seed: 24 }],
  stepLimit: { maxSteps: 4, create: () => createMazeEnv({ dialect: 'agenttraj', maxSteps: 4 }) },
  taskSource: mazeTasks,
});

describe('maze', () => {
  it('describes the start after the AgentGym client prompt, or alone', async () => {
    const description =
      'The goal is at position 8, 6. Your current position is at position 1, 1. There are walls to your left, above you, below you.';
    const client = await createMazeEnv().reset({ seed: 0 });
    expect(client.observation).toBe(`${MAZE_FIRST_OBSERVATION_PROMPT}\n${description}`);
    expect(client.admissibleActions).toEqual(['move left', 'move right', 'move up', 'move down']);
    expect((await createMazeEnv({ opening: 'server' }).reset({ seed: 0 })).observation).toBe(description);
    const agenttraj = createMazeEnv({ opening: 'server', dialect: 'agenttraj' });
    expect((await agenttraj.reset({ seed: 0 })).observation).toBe(`${description}\n`);
  });

  it('moves, stays put at walls, and wins with Success on the goal', async () => {
    const env = createMazeEnv({ opening: 'server' });
    await env.reset({ seed: 18 });
    const bump = await env.step('move left');
    expect(bump).toMatchObject({ reward: 0, terminated: false, info: { valid: true, position: [7, 6] } });
    expect(bump.observation).toBe(
      'The goal is at position 8, 6. Your current position is at position 7, 6. There are walls to your right, to your left.',
    );
    const win = await env.step('move down');
    expect(win).toMatchObject({ observation: 'Success\n', reward: 1, terminated: true, info: { won: true } });
  });

  it('answers an unknown or differently written command with the same description, as LMRL-Gym does', async () => {
    const env = createMazeEnv({ opening: 'server' });
    const start = await env.reset({ seed: 5 });
    for (const action of ['xyzzy plugh', 'Move Down', ' move down', 'move down\n', 'go south', '']) {
      const result = await env.step(action);
      expect(result.observation).toBe(start.observation);
      expect(result).toMatchObject({ reward: 0, terminated: false, info: { valid: false } });
    }
  });

  it('fails with reward -1 on the step after 50 moves off the goal, when the step limit allows it', async () => {
    const env = createMazeEnv({ maxSteps: 100 });
    await env.reset({ seed: 0 });
    for (let i = 0; i < 50; i++) expect((await env.step('move up')).terminated).toBe(false);
    expect(await env.step('move right')).toMatchObject({
      observation: 'Failure\n',
      reward: -1,
      terminated: true,
      info: { won: false },
    });
  });

  it('plays game 25 (start on the goal) only in the agenttraj dialect, where any command wins', async () => {
    const error = await createMazeEnv()
      .reset({ seed: 25 })
      .catch((e: unknown) => e);
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    const env = createMazeEnv({ dialect: 'agenttraj', opening: 'server' });
    expect((await env.reset({ seed: 25 })).observation).toBe(
      'The goal is at position 8, 6. Your current position is at position 8, 6. There are walls to your right, to your left, below you.\n',
    );
    expect(await env.step('move left')).toMatchObject({ observation: 'Success\n', reward: 1 });
    await env.reset({ seed: 25 });
    expect((await env.step('move up')).observation).toContain('position 7, 6.');
  });

  it('refuses games and task ids that do not exist with a NotFoundError', async () => {
    const env = createMazeEnv();
    const game = await env.reset({ seed: 26 }).catch((e: unknown) => e);
    expect(NotFoundError.isInstance(game)).toBe(true);
    expect((game as Error).message).toContain('The game 26 is not valid.');
    for (const taskId of ['train-10', 'valid_unseen-15', 'test-0', 'train-x', 'game-3']) {
      const error = await env.reset({ seed: 0, taskId }).catch((e: unknown) => e);
      expect(NotFoundError.isInstance(error), taskId).toBe(true);
    }
    await expect(mazeTasks.tasks('test')).rejects.toThrow(/unknown split "test"/);
  });

  it('has splits by start cell, and the oracle walks a shortest way from each', async () => {
    expect(
      mazeSplitGames.valid_unseen.filter((game) =>
        (mazeSplitGames.train as readonly number[]).includes(game),
      ),
    ).toEqual([]);
    const lengths: number[] = [];
    for (const task of await mazeTasks.tasks('valid_unseen')) {
      const { actions } = await mazeTasks.oracle(task);
      expect(actions.every((action) => (MAZE_ACTIONS as readonly string[]).includes(action))).toBe(true);
      lengths.push(actions.length);
    }
    // Manhattan distances on the double-T: from (1, 1) it is 2 + 4 + 3 + 3 moves.
    expect(lengths[0]).toBe(12);
  });
});

describe("maze step limit: the original's by default", () => {
  it('agentgym dialect: no truncation of ours; the step after 50 moves off the goal fails, as there', async () => {
    const env = createMazeEnv({ opening: 'server' });
    let last = await env.reset({ seed: 0 });
    for (let k = 0; k < 50; k++) {
      last = await env.step('move up');
      expect(last.truncated || last.terminated).toBe(false);
    }
    last = await env.step('move up');
    expect(last).toMatchObject({ observation: 'Failure\n', reward: -1, terminated: true, truncated: false });
  });

  it("agenttraj dialect: AgentGym's 15 rounds; an explicit maxSteps wins over either default", async () => {
    const traj = createMazeEnv({ dialect: 'agenttraj' });
    let last = await traj.reset({ seed: 0 });
    for (let k = 0; k < 15; k++) last = await traj.step('move up');
    expect(last.truncated).toBe(true);
    const short = createMazeEnv({ maxSteps: 3 });
    await short.reset({ seed: 0 });
    await short.step('move up');
    await short.step('move up');
    expect((await short.step('move up')).truncated).toBe(true);
  });
});
