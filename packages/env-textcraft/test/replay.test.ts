// Replays all 374 AgentTraj-L TextCraft trajectories of shared/env-data (PilotRL's copy, thoughts
// removed) on AgentGym's Minecraft recipes loaded through `recipesDir`: the world, the goal of every
// train id (pinned from goal-table.json), the listing's structure, and every observation after an
// action, with the final reward of 1. AgentTraj's text is the `agenttraj` dialect recorded with the
// 2024 traversal. The listing's order cannot be repeated (Python hashing), so each replay plays the
// data's own first listing: `textcraftOpening` of its lines must give the data's first observation.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkEnv } from '@pilotrl/env-testkit/vitest';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { envDataDir, fixture } from '../../../tooling/env-data';
import {
  createTextcraftEnv,
  createTextcraftTasks,
  itemIdToText,
  resolveSetup,
  TEXTCRAFT_SYSTEM_PROMPT_2024,
  type TextcraftGame,
  textcraftOpening,
  textToItemId,
} from '../src/index';

const trajectorySchema = z.object({
  item_id: z.string().regex(/^textcraft_\d+$/),
  system_prompt: z.string(),
  initial_observation: z.string(),
  steps: z.array(z.object({ action: z.string(), observation: z.string().nullable() })).min(1),
});
const goalTableSchema = z.object({
  depth_bands_data_idx_inclusive: z.record(z.string(), z.tuple([z.number(), z.number()])),
  goals_by_depth_sorted: z.record(z.string(), z.array(z.string())),
  train_goal_by_data_idx: z.record(z.string(), z.object({ goal: z.string(), depth: z.number() })),
  test_data_idx_by_depth: z.record(z.string(), z.array(z.number())),
  goals_not_in_train_by_depth: z.record(z.string(), z.array(z.string())),
});
const idListSchema = z.array(z.object({ item_id: z.string().regex(/^textcraft_\d+$/) }));

const base = fixture('textcraft');
const recipesDir =
  base && join(base, 'WooooDyy__AgentGym@3ef9235/agentenv-textcraft/agentenv_textcraft/recipes');
const read = (path: string) => JSON.parse(readFileSync(join(base!, path), 'utf8')) as unknown;
const ids = (path: string) => idListSchema.parse(read(path)).map((row) => Number(row.item_id.split('_')[1]));

describe.skipIf(base === undefined)(
  `AgentTraj-L textcraft replay${base === undefined ? ` (skipped: no fixtures under ${envDataDir})` : ''}`,
  () => {
    const table =
      base === undefined
        ? undefined
        : goalTableSchema.parse(read('derived__WooooDyy__AgentGym@3ef9235/goal-table.json'));
    const pinnedGoals = Object.fromEntries(
      Object.entries(table?.train_goal_by_data_idx ?? {}).map(([index, { goal }]) => [index, goal]),
    );
    const splits =
      base === undefined
        ? undefined
        : {
            train: ids('WooooDyy__AgentGym-RL@e182a6b/AgentGym-RL/AgentItemId/train/textcraft_train.json'),
            valid_unseen: ids(
              'WooooDyy__AgentGym-RL@e182a6b/AgentGym-RL/AgentItemId/eval/textcraft_test.json',
            ),
          };
    const options = { recipesDir: recipesDir!, pinnedGoals, splits };

    it('loads the world AgentGym loads: 544 goals in bands 140/280/113/11, the 132 base items', () => {
      const setup = resolveSetup(options);
      const bands = table!.depth_bands_data_idx_inclusive;
      for (const [depth, [first, last]] of Object.entries(bands)) {
        const band = setup.goals.slice(first, last + 1).map((id) => setup.world.minDepth(id));
        expect(new Set(band), `depth ${depth}`).toEqual(new Set([Number(depth)]));
        expect(
          setup.goals
            .slice(first, last + 1)
            .map(itemIdToText)
            .sort(),
        ).toEqual([...table!.goals_by_depth_sorted[depth]!].sort());
      }
      expect(setup.goals).toHaveLength(544);
      const baseItems = z
        .array(z.string())
        .parse(read('derived__WooooDyy__AgentGym@3ef9235/base-items.json'));
      expect(setup.world.baseItems().map(itemIdToText).sort()).toEqual([...baseItems].sort());
      for (const [index, { goal }] of Object.entries(table!.train_goal_by_data_idx)) {
        expect(setup.goals[Number(index)], index).toBe(textToItemId(goal));
      }
      for (const [depth, test] of Object.entries(table!.test_data_idx_by_depth)) {
        const unseen = new Set(table!.goals_not_in_train_by_depth[depth]);
        for (const index of test)
          expect(unseen.has(itemIdToText(setup.goals[index]!)), `${index}`).toBe(true);
      }
    });

    it('replays every trajectory with identical observations and a final reward of 1', () => {
      const lines = readFileSync(join(base!, '8023looker__PilotRL@c64319c/replay.jsonl'), 'utf8')
        .split('\n')
        .filter((line) => line !== '');
      const trajectories = lines.slice(1).map((line) => trajectorySchema.parse(JSON.parse(line)));
      const setup = resolveSetup({ ...options, traversal: '2024' });
      const mismatches: string[] = [];
      let observations = 0;
      let structure = 0;
      for (const [n, trajectory] of trajectories.entries()) {
        const where = `line ${n + 2} (${trajectory.item_id})`;
        const dataIdx = Number(trajectory.item_id.split('_')[1]);
        if (trajectory.system_prompt !== TEXTCRAFT_SYSTEM_PROMPT_2024)
          mismatches.push(`${where}: system prompt`);
        const opening = /^Instruction:\nCrafting commands:\n([\s\S]*)\n\nGoal: craft (.+)\.$/.exec(
          trajectory.initial_observation,
        );
        if (opening === null) {
          mismatches.push(`${where}: first observation has no listing`);
          continue;
        }
        const [, commands, goalText] = opening;
        // Ours: the same goal for this data_idx, the same closure, extras only distractors.
        const ours = setup.start(dataIdx, undefined);
        if (ours.goalText !== goalText) mismatches.push(`${where}: goal ${ours.goalText} vs ${goalText}`);
        const closure = new Set(ours.world.closure(ours.goal).map((recipe) => ours.world.text(recipe)));
        const theirs = commands!.split('\n');
        const uses = ours.world.uses();
        const distractorTexts = new Set(
          [...closure].length === 0
            ? []
            : ours.world
                .closure(ours.goal)
                .flatMap((recipe) =>
                  recipe.inputs.flatMap(
                    (input) => uses.get(input.itemTag.itemId ?? input.itemTag.tag!) ?? [],
                  ),
                )
                .map((recipe) => ours.world.text(recipe)),
        );
        const extras = theirs.filter((line) => !closure.has(line));
        if (
          ![...closure].every((line) => theirs.includes(line)) ||
          extras.length > 10 ||
          !extras.every((line) => distractorTexts.has(line)) ||
          new Set(theirs).size !== theirs.length
        ) {
          mismatches.push(`${where}: listing structure`);
        } else structure++;
        // The data's own listing, played by a game with our engine under the 2024 traversal.
        observations++;
        if (`Instruction:\n${textcraftOpening(commands!, goalText!)}` !== trajectory.initial_observation)
          mismatches.push(`${where}: first observation`);
        const game: TextcraftGame = ours.game;
        let last = { observation: '', reward: 0 };
        for (const [i, step] of trajectory.steps.entries()) {
          last = game.step(step.action);
          if (step.observation === null) continue;
          observations++;
          const shown = `Instruction:\n${last.observation.replace(/ +$/, '')}`;
          if (shown !== step.observation) {
            mismatches.push(
              `${where} step ${i + 1}: ${JSON.stringify(shown)} vs ${JSON.stringify(step.observation)}`,
            );
          }
        }
        if (last.reward !== 1) mismatches.push(`${where}: ended with reward ${last.reward}`);
      }
      expect(mismatches).toEqual([]);
      expect(trajectories).toHaveLength(374);
      console.log(
        `textcraft replay: ${trajectories.length} trajectories, ${observations} observations (first ones included), ${structure} listings with the right structure, 0 mismatches`,
      );
    });

    it('replays through the env too: the agenttraj dialect gives the data text after the opening', async () => {
      const env = createTextcraftEnv({ ...options, traversal: '2024', dialect: 'agenttraj' });
      const first = await env.reset({ seed: 210 });
      expect(first.observation.startsWith('Instruction:\nCrafting commands:\n')).toBe(true);
      expect(first.info.goal).toBe('birch stairs');
      await env.step('get 1 birch logs');
      expect((await env.step('craft 4 birch stairs using 1 birch logs')).observation).toBe(
        'Instruction:\nCrafted 4 minecraft:birch_planks',
      );
      const fixed = createTextcraftEnv({ ...options, dialect: 'agenttraj' });
      await fixed.reset({ seed: 210 });
      await fixed.step('get 1 birch logs');
      expect((await fixed.step('craft 4 birch stairs using 1 birch logs')).observation).toBe(
        "Instruction:\nCould not find a valid recipe for ItemTagWithCount(item_tag=ItemTag(tag=None, item_id='minecraft:birch_stairs'), count=4)",
      );
    });

    it("replays every trajectory through the env reset with its own goal and listing (AgentGym's reset(commands, goal))", async () => {
      const lines = readFileSync(join(base!, '8023looker__PilotRL@c64319c/replay.jsonl'), 'utf8')
        .split('\n')
        .filter((line) => line !== '');
      const trajectories = lines.slice(1).map((line) => trajectorySchema.parse(JSON.parse(line)));
      // No pinned goals or splits: a goal given whole needs neither.
      const env = createTextcraftEnv({
        recipesDir: recipesDir!,
        traversal: '2024',
        dialect: 'agenttraj',
        maxSteps: 100,
      });
      const fixed = createTextcraftEnv({ recipesDir: recipesDir!, dialect: 'agenttraj', maxSteps: 100 });
      const mismatches: string[] = [];
      let observations = 0;
      const fixedDiffer: string[] = [];
      for (const trajectory of trajectories) {
        const [, commands, goal] = /^Instruction:\nCrafting commands:\n([\s\S]*)\n\nGoal: craft (.+)\.$/.exec(
          trajectory.initial_observation,
        )!;
        const first = await env.reset({ seed: 0, goal: goal!, commands: commands! });
        if (first.observation !== trajectory.initial_observation)
          mismatches.push(`${trajectory.item_id}: opening`);
        let last = first;
        for (const [i, step] of trajectory.steps.entries()) {
          last = await env.step(step.action);
          if (step.observation === null) continue;
          observations++;
          if (last.observation !== step.observation) mismatches.push(`${trajectory.item_id} step ${i + 1}`);
          if (last.terminated) mismatches.push(`${trajectory.item_id} step ${i + 1}: done early`);
        }
        if (!(last.terminated && last.reward === 1 && last.info.won))
          mismatches.push(`${trajectory.item_id}: not done`);
        // The 2025 rules answer a trajectory that used quirk Q1 differently.
        await fixed.reset({ seed: 0, goal: goal!, commands: commands! });
        let same = true;
        for (const step of trajectory.steps) {
          const answer = await fixed.step(step.action);
          if (step.observation !== null && answer.observation !== step.observation) same = false;
        }
        if (!same) fixedDiffer.push(trajectory.item_id);
      }
      expect(mismatches).toEqual([]);
      expect(observations).toBe(2618);
      // textcraft_210's `craft 4 birch stairs using 1 birch logs` is one of the Q1 steps.
      expect(fixedDiffer).toContain('textcraft_210');
      console.log(
        `textcraft replay through reset(goal, commands): ${trajectories.length} trajectories, ${observations} observations, 0 mismatches; the 2025 rules answer ${fixedDiffer.length} of them differently`,
      );
    });

    it('has AgentGym splits from the id lists, and the oracle wins every task of them', async () => {
      const tasks = createTextcraftTasks(options);
      expect([tasks.count('train'), tasks.count('valid_seen'), tasks.count('valid_unseen')]).toEqual([
        374, 374, 100,
      ]);
      const env = createTextcraftEnv({ ...options, maxSteps: 200 });
      const wins: Record<string, string> = {};
      const lengths: number[] = [];
      for (const split of ['train', 'valid_seen', 'valid_unseen']) {
        let won = 0;
        const all = await tasks.tasks(split);
        for (const task of all) {
          let result = await env.reset(task);
          const { actions } = await tasks.oracle(task);
          for (const action of actions) result = await env.step(action);
          if (result.info.won) won++;
          lengths.push(actions.length);
        }
        wins[split] = `${won}/${all.length}`;
        expect(won, split).toBe(all.length);
      }
      lengths.sort((a, b) => a - b);
      console.log(
        `textcraft (Minecraft recipes) oracle wins: ${JSON.stringify(wins)}; actions median ${lengths[lengths.length >> 1]}, max ${lengths.at(-1)}`,
      );
    });
  },
);

describe.skipIf(base === undefined)('textcraft env on the Minecraft recipes', () => {
  if (base === undefined) return;
  const options = { recipesDir: recipesDir! };
  checkEnv(() => createTextcraftEnv(options), {
    name: 'textcraft (Minecraft recipes via recipesDir)',
    // Not seed 31 (dark oak planks): its first get, `get 1 dark oak logs`, has the near miss
    // `get 1 dark oak log`, which is a real item in this world and so rightly valid.
    resets: [{ seed: 33 }, { seed: 300 }, { seed: 540, taskId: 'valid_unseen-3' }],
    stepLimit: { maxSteps: 4, create: () => createTextcraftEnv({ ...options, maxSteps: 4 }) },
    taskSource: createTextcraftTasks(options),
  });
});
