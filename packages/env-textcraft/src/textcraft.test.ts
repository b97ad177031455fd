import { EnvError, EPISODE_OVER_OBSERVATION, InvalidArgumentError, NotFoundError } from '@pilotrl/core';
import { checkEnv } from '@pilotrl/env-testkit/vitest';
import { describe, expect, it } from 'vitest';
import { createTextcraftEnv, textcraftTasks } from './index';

checkEnv(() => createTextcraftEnv(), {
  resets: [
    { seed: 0 },
    { seed: 150 },
    { seed: 2, taskId: 'valid_unseen-2' },
    { seed: 5, taskId: 'generated_depth_3-5' },
  ],
  stepLimit: { maxSteps: 4, create: () => createTextcraftEnv({ maxSteps: 4 }) },
  taskSource: textcraftTasks,
  tasksPerSplit: 10,
});

checkEnv(() => createTextcraftEnv({ dialect: 'agenttraj', traversal: '2024' }), {
  name: 'textcraft (agenttraj dialect, 2024 traversal)',
  resets: [{ seed: 7 }, { seed: 190 }],
  stepLimit: { maxSteps: 4, create: () => createTextcraftEnv({ dialect: 'agenttraj', maxSteps: 4 }) },
  taskSource: textcraftTasks,
});

/** An episode of the built-in world at `seed`, with the oracle's commands. */
async function episode(seed: number, config: Parameters<typeof createTextcraftEnv>[0] = {}) {
  const env = createTextcraftEnv({ maxSteps: 100, ...config });
  const first = await env.reset({ seed });
  return { env, first };
}

describe('textcraft interface strings (AgentGym environment.py)', () => {
  it('opens with the crafting commands and the goal', async () => {
    const { first } = await episode(0);
    expect(first.observation).toMatch(/^Crafting commands:\n(craft \d+ .+ using .+\n)+\nGoal: craft .+\.$/);
    expect(first.observation.endsWith(`\n\nGoal: craft ${first.info.goal}.`)).toBe(true);
    expect(first.info.task).toBe(`craft ${first.info.goal}`);
  });

  it('answers get, craft and inventory word for word, and wins on crafting the goal', async () => {
    const env = createTextcraftEnv();
    const [task] = await textcraftTasks.tasks('train', { limit: 1 });
    await env.reset(task!);
    expect((await env.step('inventory')).observation).toBe('Inventory: You are not carrying anything.');
    const { actions } = await textcraftTasks.oracle(task!);
    let last = await env.step(actions[0]!);
    expect(last.observation).toMatch(/^Got \d+ .+$/);
    expect(last.info.valid).toBe(true);
    for (const action of actions.slice(1)) last = await env.step(action);
    expect(last).toMatchObject({ reward: 1, terminated: true, info: { won: true, valid: true } });
    expect(last.observation).toMatch(/^Crafted \d+ minecraft:[a-z_]+$/);
  });

  it('gives each failure the original answer', async () => {
    const { env, first } = await episode(100);
    expect(first.info.goal).toBe('runed mortar');
    const step = async (action: string) => (await env.step(action)).observation;
    expect(await step('get 1 peg')).toBe('Could not find peg'); // craftable
    expect(await step('get 1 boards')).toBe('Could not find boards'); // a group tag
    expect(await step('get 1 unobtainium')).toBe('Could not find unobtainium');
    expect(await step('get peg')).toBe('Could not execute get peg'); // no count
    expect(await step('Inventory')).toBe('Could not execute Inventory'); // case-sensitive
    expect(await step('xyzzy plugh')).toBe('Could not execute xyzzy plugh');
    expect(await step('craft 4 peg using 2 cedar board')).toBe(
      'Could not find enough items to craft minecraft:peg',
    );
    expect(await step('craft 4 peg using two cedar board')).toBe('Wrong item format: two cedar board');
    expect(await step('craft 4 boards using 1 cedar lumber')).toBe(
      'Could not find enough items to craft None',
    );
    expect(await step('get 2 cedar board')).toBe('Could not find cedar board');
    expect(await step('get 1 cedar lumber')).toBe('Got 1 cedar lumber');
    expect(await step('craft 4 boards using 1 cedar lumber')).toBe(
      "Could not find a valid recipe for ItemTagWithCount(item_tag=ItemTag(tag='minecraft:boards', item_id=None), count=4)",
    );
    expect(await step('craft 4 cedar board using 1 cedar lumber')).toBe('Crafted 4 minecraft:cedar_board');
    expect(await step('craft 9 peg using 3 cedar board')).toBe(
      "Could not find a valid recipe for ItemTagWithCount(item_tag=ItemTag(tag=None, item_id='minecraft:peg'), count=9)",
    );
    // The output count typed is ignored; `cedar board` stands in for the generic `boards`.
    expect(await step('craft 1 peg using 2 cedar board')).toBe('Crafted 4 minecraft:peg');
    expect(await step('inventory')).toBe('Inventory: [cedar board] (2) [peg] (4) ');
  });

  it('reproduces the quirks: prefix matches, any count, counts as Python integers', async () => {
    const { env } = await episode(0);
    const inventoryx = await env.step('inventoryx');
    expect(inventoryx.observation).toBe('Inventory: You are not carrying anything.');
    expect(inventoryx.info.valid).toBe(false); // executed, but not the command as written
    expect((await env.step('get 0 cedar lumber')).observation).toBe('Got 0 cedar lumber');
    expect((await env.step('get 007 cedar lumber')).observation).toBe('Got 7 cedar lumber');
    expect((await env.step('get 99999999999999999999 moss fiber')).observation).toBe(
      'Got 99999999999999999999 moss fiber',
    );
    expect((await env.step('get 1 moss fiber\nand more')).info.valid).toBe(false);
    expect((await env.step('inventory')).observation).toBe(
      'Inventory: [cedar lumber] (7) [moss fiber] (100000000000000000000) ',
    );
  });

  it('writes AgentTraj-L text in the agenttraj dialect', async () => {
    const { env, first } = await episode(0, { dialect: 'agenttraj' });
    expect(first.observation.startsWith('Instruction:\nCrafting commands:\n')).toBe(true);
    await env.step('get 1 cedar lumber');
    expect((await env.step('inventory')).observation).toBe('Instruction:\nInventory: [cedar lumber] (1)');
  });

  it('lists every command the listing names, the same all episode, with `listed`', async () => {
    const tasks = await textcraftTasks.tasks('valid_unseen');
    for (const task of tasks) {
      const env = createTextcraftEnv({ admissibleActions: 'listed', maxSteps: 100 });
      const now = createTextcraftEnv({ maxSteps: 100 });
      let result = await env.reset(task);
      let succeeding = await now.reset(task);
      const listed = result.admissibleActions;
      expect(listed[0]).toBe('inventory');
      // Crafting the goal is listed from the start, though nothing is held to craft it with.
      const goalCrafts = listed.filter((command) => command.includes(` ${result.info.goal} using `));
      expect(goalCrafts.length).toBeGreaterThan(0);
      expect((await createTextcraftEnv().reset(task)).admissibleActions).not.toContain(goalCrafts[0]);
      for (const command of (await textcraftTasks.oracle(task)).actions) {
        expect(listed).toContain(command);
        for (const shown of succeeding.admissibleActions) expect(listed).toContain(shown);
        result = await env.step(command);
        succeeding = await now.step(command);
        if (!result.terminated) expect(result.admissibleActions).toEqual(listed);
      }
      expect(result.info.won).toBe(true);
    }
  });

  it('can list no admissible actions, as AgentGym', async () => {
    const { env, first } = await episode(0, { admissibleActions: 'none' });
    expect(first.admissibleActions).toEqual([]);
    expect((await env.step('inventory')).admissibleActions).toEqual([]);
  });
});

describe('textcraft bad input', () => {
  it('refuses task ids outside the splits with a NotFoundError', async () => {
    const env = createTextcraftEnv();
    for (const taskId of [
      `train-${textcraftTasks.count('train')}`,
      'valid_unseen-9999',
      'test-0',
      'train-x',
      'generated_depth_5-1',
    ]) {
      const error = await env.reset({ seed: 0, taskId }).catch((e: unknown) => e);
      expect(NotFoundError.isInstance(error), taskId).toBe(true);
      expect((error as Error).message).toContain('task ids are "<split>-<index>"');
    }
    await expect(textcraftTasks.tasks('test')).rejects.toThrow(/unknown split "test"/);
  });

  it('refuses a bad config and a step before reset', async () => {
    expect(() => createTextcraftEnv({ maxSteps: 0 })).toThrow(InvalidArgumentError);
    expect(() => createTextcraftEnv({ colour: 'red' } as never)).toThrow(/colour/);
    const error = await createTextcraftEnv()
      .step('inventory')
      .catch((e: unknown) => e);
    expect(EnvError.isInstance(error)).toBe(true);
  });

  it('ends the episode for good once won', async () => {
    const [task] = await textcraftTasks.tasks('valid_unseen', { limit: 1 });
    const env = createTextcraftEnv();
    await env.reset(task!);
    for (const action of (await textcraftTasks.oracle(task!)).actions) await env.step(action);
    expect(await env.step('inventory')).toMatchObject({
      observation: EPISODE_OVER_OBSERVATION,
      reward: 0,
      terminated: true,
      info: { valid: false },
    });
  });
});

describe("a goal with its crafting listing (AgentGym's reset(commands=…, goal=…))", () => {
  /** The listing lines and the goal of the built-in world's episode at `seed`. */
  async function listingOf(seed: number) {
    const first = await createTextcraftEnv().reset({ seed });
    const [, commands] = /^Crafting commands:\n([\s\S]*)\n\nGoal: craft .+\.$/.exec(first.observation)!;
    return { commands: commands!, goal: first.info.goal as string, first };
  }

  it('opens with the listing as given and the goal, plays it, and ends done when the goal is crafted', async () => {
    const { commands, goal, first } = await listingOf(3);
    const env = createTextcraftEnv();
    const opening = await env.reset({ seed: 0, goal: `minecraft:${goal.replaceAll(' ', '_')}`, commands });
    expect(opening.observation).toBe(first.observation);
    expect(opening.admissibleActions).toEqual(first.admissibleActions);
    expect(opening.info).toEqual({ won: false, valid: true, task: `craft ${goal}`, goal });
    const [task] = await textcraftTasks
      .tasks('train', { offset: 0, limit: 200 })
      .then((all) => all.filter((t) => t.seed === 3));
    const { actions } = await textcraftTasks.oracle(task!);
    let last = opening;
    for (const action of actions) last = await env.step(action);
    expect(last).toMatchObject({ reward: 1, terminated: true, truncated: false, info: { won: true } });
    expect((await env.step('inventory')).observation).toBe(EPISODE_OVER_OBSERVATION);
  });

  it('takes the goal in words and the listing as lines, and the engine reports done on the winning step', async () => {
    const { commands, goal } = await listingOf(3);
    const env = createTextcraftEnv();
    const lines = commands.split('\n');
    const opening = await env.reset({ seed: 0, goal, commands: lines });
    expect(opening.observation).toBe(`Crafting commands:\n${commands}\n\nGoal: craft ${goal}.`);
    // A listing of one line: only what it lists is offered, yet every recipe of the world can be crafted.
    const short = await env.reset({ seed: 0, goal, commands: lines.slice(0, 1) });
    expect(short.observation).toBe(`Crafting commands:\n${lines[0]}\n\nGoal: craft ${goal}.`);
  });

  it('refuses, naming the field, a goal without commands, a task id beside them, a misspelt field', async () => {
    const env = createTextcraftEnv();
    const { commands, goal } = await listingOf(3);
    await expect(env.reset({ seed: 0, goal })).rejects.toThrow(/commands: is required with goal/);
    await expect(env.reset({ seed: 0, commands })).rejects.toThrow(/goal: is required with commands/);
    await expect(env.reset({ seed: 0, taskId: 'train-1', goal, commands })).rejects.toThrow(
      /taskId: cannot go/,
    );
    await expect(env.reset({ seed: 0, goal, command: commands } as never)).rejects.toThrow(
      /Unrecognized key: "command"/,
    );
    await expect(env.reset({ seed: 0, goal: 'unobtainium', commands })).rejects.toThrow(
      /goal "unobtainium" is not an item of this recipe world/,
    );
    await expect(
      env.reset({ seed: 0, goal, commands: `${commands}\ncraft 1 pony using 2 cake` }),
    ).rejects.toThrow(/commands line \d+ "craft 1 pony using 2 cake" is not a recipe of this recipe world/);
    await expect(env.reset({ seed: 0, goal, commands })).resolves.toMatchObject({ info: { goal } });
  });
});
