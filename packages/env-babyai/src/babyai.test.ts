import { UnsolvableTaskError } from '@pilotrl/core';
import { checkEnv } from '@pilotrl/env-testkit/vitest';
import { describe, expect, it } from 'vitest';
import { AgentGymBabyAI } from './agentgym';
import {
  BABYAI_SPLIT_PLAN,
  babyaiLevel,
  babyaiSplitSize,
  babyaiTasks,
  createBabyaiEnv,
  createBabyaiTasks,
} from './index';
import { plugin } from './plugin';

checkEnv(() => createBabyaiEnv(), {
  resets: [{ seed: 0 }, { seed: 1 }, { seed: 2, taskId: 'valid_unseen-2' }],
  stepLimit: { maxSteps: 4, create: () => createBabyaiEnv({ maxSteps: 4 }) },
  taskSource: babyaiTasks,
});

describe('babyai', () => {
  it('wins a task with the oracle, with a reward of 1 - 0.9 * primitive steps / max steps', async () => {
    const env = createBabyaiEnv();
    const [task] = await babyaiTasks.tasks('train', { limit: 1 });
    const { actions } = await babyaiTasks.oracle(task!);
    let result = await env.reset(task!);
    expect(result.observation).toMatch(/^Your goal: go to the red ball\n/);
    for (const action of actions) result = await env.step(action);
    expect(result.info.won).toBe(true);
    expect(result.observation).toContain('\n The task is completed.');
    expect(result.reward).toBe(1 - 0.9 * (9 / 64)); // 9 primitives of 64 allowed
  });

  it('answers unknown and empty commands as AgentGym does, without a step of the game', async () => {
    const env = createBabyaiEnv({ dialect: 'agenttraj' });
    await env.reset({ seed: 0 });
    expect((await env.step('pick up red ball 1')).observation).toBe(
      'The action is not recognized. Please check valid actions.',
    );
    expect((await env.step('   ')).observation).toBe('No change in state.');
    const listing = await env.step('Check');
    expect(listing.observation).toMatch(/^You can take the following actions: turn left, turn right, /);
    expect(listing.info.valid).toBe(true);
  });

  it('wins every winnable task of every shipped split with the oracle, within 20 commands', async () => {
    const wins: Record<string, number> = {};
    const unsolvable: string[] = [];
    for (const split of Object.keys(BABYAI_SPLIT_PLAN)) {
      const tasks = await babyaiTasks.tasks(split);
      expect(tasks).toHaveLength(babyaiSplitSize(split));
      wins[split] = 0;
      for (const task of tasks) {
        const actions = await babyaiTasks.oracle(task).then(
          (solution) => solution.actions,
          (error: unknown) => {
            if (!UnsolvableTaskError.isInstance(error)) throw error;
            unsolvable.push(task.taskId);
            return [];
          },
        );
        const game = new AgentGymBabyAI(babyaiLevel(task.seed));
        expect(actions.length, task.taskId).toBeLessThanOrEqual(20);
        if (actions.length > 0 && actions.map((action) => game.step(action).done).at(-1)) wins[split] += 1;
      }
    }
    // The 3 train tasks missed cannot be won at all: GoToImpUnlock seeds 6, 14 and 35 (data indices
    // 246, 566, 1406) put the target in the locked room and the only key of its door in there too
    // (Minigrid v2.3.1 compares room indices with `is`, so "a different room" is not enforced);
    // no cell next to the target can be reached from the agent's start.
    expect(wins).toEqual({ train: 807, valid_seen: 90, valid_unseen: 60 });
    expect(unsolvable).toEqual(['train-276', 'train-284', 'train-305']);
  }, 300_000);

  it('offers only the commands of one primitive action in the primitive form, with the texts of AgentGym', async () => {
    const primitive = createBabyaiEnv({ commands: 'primitive' });
    const agentgym = createBabyaiEnv();
    const [task] = await babyaiTasks.tasks('valid_unseen', { offset: 30, limit: 1 });
    expect(task!.taskType).toBe('Pickup');
    let small = await primitive.reset(task!);
    let full = await agentgym.reset(task!);
    expect(full.admissibleActions.some((command) => command.startsWith('go to '))).toBe(true);
    for (const command of ['turn left', 'move forward', 'turn right', 'move forward', 'move forward']) {
      expect(
        small.admissibleActions.every((offered) =>
          /^(turn left|turn right|move forward|toggle|drop|pickup .+)$/.test(offered),
        ),
      ).toBe(true);
      expect(small.admissibleActions).toEqual(
        full.admissibleActions.filter((offered) => small.admissibleActions.includes(offered)),
      );
      small = await primitive.step(command);
      full = await agentgym.step(command);
      // The same game underneath: the description is AgentGym's, only the offered commands differ.
      expect(small.observation.split('\nAvailable actions: ')[0]).toBe(
        full.observation.split('\nAvailable actions: ')[0],
      );
    }
    const macro = full.admissibleActions.find((command) => command.startsWith('go to '))!;
    const refused = await primitive.step(macro);
    expect(refused.observation).toMatch(/^The action is not recognized\. Please check valid actions\./);
    expect(refused.info.valid).toBe(false);
  });

  it('wins every unseen task in primitive commands with the oracle of that form, which the plug-in picks from the options', async () => {
    const tasks = createBabyaiTasks({ commands: 'primitive' });
    const provider = plugin.envs[0]!.create({ commands: 'primitive' });
    for (const task of await tasks.tasks('valid_unseen')) {
      const { actions } = await tasks.oracle(task);
      expect((await provider.tasks!.oracle!(task)).actions).toEqual(actions);
      const env = createBabyaiEnv({ commands: 'primitive' });
      let result = await env.reset(task);
      for (const action of actions) {
        expect(result.admissibleActions).toContain(action);
        result = await env.step(action);
      }
      expect(result.info.won, task.taskId).toBe(true);
      expect(actions.length).toBeLessThanOrEqual(babyaiLevel(task.seed).max_steps);
    }
    await expect(
      createBabyaiTasks({ commands: 'primitive', maxSteps: 3 }).oracle(
        (await tasks.tasks('valid_unseen'))[0]!,
      ),
    ).rejects.toThrow(/no win of "valid_unseen-0" within 3 primitive commands/);
  });

  it('refuses a task id outside a split with the sizes of the splits', async () => {
    const env = createBabyaiEnv();
    await expect(env.reset({ seed: 0, taskId: 'valid_seen-90' })).rejects.toThrow(/valid_seen \(90\)/);
    await expect(env.reset({ seed: 0, taskId: 'test-1' })).rejects.toMatchObject({ name: 'NotFoundError' });
    await expect(env.reset({ seed: 0, taskId: 'babyai_99999' })).rejects.toThrow(/not shipped/);
  });
});

describe("babyai step limit: the original's by default", () => {
  it("agentgym dialect: truncated where Minigrid truncates, at the level's max_steps primitive steps", async () => {
    const env = createBabyaiEnv();
    let last = await env.reset({ seed: 0 }); // GoToRedBallGrey seed 0: max_steps 64
    for (let k = 0; k < 63; k++) {
      last = await env.step('turn left');
      expect(last.truncated, `command ${k + 1}`).toBe(false);
    }
    // A refused command takes no primitive step, so it brings the limit no nearer.
    expect((await env.step('pick up red ball 1')).truncated).toBe(false);
    last = await env.step('turn left');
    expect(last).toMatchObject({ truncated: true, terminated: false, admissibleActions: [] });
  });

  it("agenttraj dialect: AgentGym's 20 rounds; an explicit maxSteps wins over either default", async () => {
    const traj = createBabyaiEnv({ dialect: 'agenttraj' });
    let last = await traj.reset({ seed: 0 });
    for (let k = 0; k < 20; k++) last = await traj.step('turn left');
    expect(last.truncated).toBe(true);
    const short = createBabyaiEnv({ maxSteps: 2 });
    await short.reset({ seed: 0 });
    await short.step('turn left');
    expect((await short.step('turn left')).truncated).toBe(true);
  });
});
