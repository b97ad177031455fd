// What an env and its task source share: the recipe world (built-in, or loaded from `recipesDir`),
// the goal of every AgentGym `data_idx`, the splits, and how one task becomes an episode (goal,
// listing, engine). Generated tasks (`generated_depth_<d>-<n>`) bring a small world of their own.
import { createRng, hashString, InvalidArgumentError, NotFoundError, parseOrThrow } from '@pilotrl/core';
import { z } from 'zod';
import { TextcraftGame, textcraftOpening } from './game';
import { builtinRecipes, generatedTree } from './generate-world';
import { craftingListing } from './listing';
import { loadRecipeWorld } from './load-recipes';
import { solve } from './oracle';
import { lists2024 } from './traversal';
import { itemIdToText, type Recipe, RecipeWorld, textToItemId } from './world';

const dataIdxList = z.array(z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER)).min(1);

export const worldOptionsSchema = z.strictObject({
  /**
   * A folder of recipe JSON files in TextCraft's format (Minecraft 1.16 data-pack recipes, e.g.
   * AgentGym's `agentenv_textcraft/recipes`). Default: PilotRL's built-in generated world.
   */
  recipesDir: z.string().min(1).optional(),
  /** Load order of `recipesDir`'s files: `agentgym` (AgentTraj-L's world) or plain `sorted`. */
  fileOrder: z.enum(['agentgym', 'sorted']).default('agentgym'),
  /**
   * Goals fixed at given `data_idx` values (`{ "31": "flint and steel" }`): AgentGym's goal order
   * inside a depth band followed one machine's directory order, so a table of the goals its data
   * used (`goal-table.json`) pins them; the other goals of a band fill the other indices in load order.
   */
  pinnedGoals: z.record(z.string().regex(/^\d+$/, 'must be a data_idx'), z.string().min(1)).optional(),
  /**
   * The `data_idx` values of each split (e.g. AgentGym's train and test ids). Default: the goals,
   * with one in five (by a hash of its name) held out for `valid_unseen`; `valid_seen` replays the
   * train goals with other listings (`data_idx` + the number of goals).
   */
  splits: z
    .strictObject({ train: dataIdxList, valid_seen: dataIdxList.optional(), valid_unseen: dataIdxList })
    .optional(),
  /**
   * `fixed` (AgentGym 2025): `craft` only accepts an item's own recipes. `2024`: the released
   * server's traversal leaves each list it walks holding the recipes below it (quirk Q1), which
   * `craft` then accepts; AgentTraj-L was recorded with it.
   */
  traversal: z.enum(['fixed', '2024']).default('fixed'),
});
export type WorldOptions = z.input<typeof worldOptionsSchema>;

export const TEXTCRAFT_ENV_ID = 'textcraft';
export const SPLITS = ['train', 'valid_seen', 'valid_unseen'] as const;
export const GENERATED_SPLITS = [
  'generated_depth_1',
  'generated_depth_2',
  'generated_depth_3',
  'generated_depth_4',
] as const;

/** One episode: the goal, the listing and a fresh engine. */
export interface EpisodeStart {
  readonly world: RecipeWorld;
  readonly goal: string;
  readonly goalText: string;
  readonly dataIdx: number | undefined;
  readonly listing: readonly Recipe[];
  readonly opening: string;
  readonly game: TextcraftGame;
}

export interface TextcraftSetup {
  readonly world: RecipeWorld;
  /** Goal item id of each `data_idx` below its length (`data_idx % length` beyond). */
  readonly goals: readonly string[];
  readonly splits: Readonly<Record<(typeof SPLITS)[number], readonly number[]>>;
  readonly traversal: 'fixed' | '2024';
  /** The episode of a task id, or of `data_idx = seed` without one. */
  start(seed: number, taskId: string | undefined): EpisodeStart;
  /**
   * The episode of a given goal and crafting listing (AgentGym's `reset(commands=…, goal=…)`): the
   * listing shown as given, the goal an item id (`minecraft:birch_stairs`) or its words.
   */
  listed(task: ListedTask): EpisodeStart;
}

/**
 * A TextCraft task given whole, as AgentGym's `TextCraftEnv.reset(commands=…, goal=…)` takes it:
 * the goal item and the crafting commands the opening lists.
 */
export const listedTaskSchema = z.strictObject({
  /** The goal: an item id (`minecraft:birch_stairs`, AgentGym's form) or its words (`birch stairs`). */
  goal: z.string().min(1),
  /**
   * The crafting commands, one recipe line each (`craft 4 birch planks using 1 birch logs`), as one
   * text joined by newlines (shown verbatim, as AgentGym shows it) or as a list of lines.
   */
  commands: z.union([z.string(), z.array(z.string())]),
});
export type ListedTask = z.infer<typeof listedTaskSchema>;

/** Each world's recipes by listing line, for reading a given listing. */
const recipesByText = new WeakMap<RecipeWorld, Map<string, Recipe>>();
function recipeOfLine(world: RecipeWorld, line: string): Recipe | undefined {
  let byText = recipesByText.get(world);
  if (byText === undefined) {
    byText = new Map();
    for (const recipes of world.itemRecipes.values())
      for (const recipe of recipes)
        if (!byText.has(world.text(recipe))) byText.set(world.text(recipe), recipe);
    recipesByText.set(world, byText);
  }
  return byText.get(line);
}

let builtinWorld: RecipeWorld | undefined;
/** PilotRL's built-in recipe world (generated once per process). */
export function builtinRecipeWorld(): RecipeWorld {
  builtinWorld ??= new RecipeWorld(builtinRecipes());
  return builtinWorld;
}

function goalOrder(world: RecipeWorld, pinned: Record<string, string> | undefined): string[] {
  const goals = world.goals();
  const order = goals.map((goal) => goal.itemId);
  if (pinned === undefined) return order;
  const depthOf = new Map(goals.map((goal) => [goal.itemId, goal.depth]));
  const slots: Array<string | undefined> = order.map(() => undefined);
  const placed = new Set<string>();
  for (const [key, name] of Object.entries(pinned)) {
    const index = Number(key);
    const itemId = textToItemId(name);
    const where = `pinnedGoals["${key}"] = "${name}"`;
    if (!depthOf.has(itemId))
      throw new InvalidArgumentError(`textcraft: ${where} is not a goal of this recipe world`);
    if (index >= order.length || depthOf.get(order[index]!) !== depthOf.get(itemId)) {
      throw new InvalidArgumentError(
        `textcraft: ${where}: data_idx ${index} is not in the depth-${depthOf.get(itemId)} band of this world's ${order.length} goals`,
      );
    }
    if (placed.has(itemId)) throw new InvalidArgumentError(`textcraft: ${where} pins a goal twice`);
    slots[index] = itemId;
    placed.add(itemId);
  }
  for (const depth of new Set(depthOf.values())) {
    const rest = order.filter((id) => depthOf.get(id) === depth && !placed.has(id));
    for (const [index, current] of order.entries()) {
      if (depthOf.get(current) === depth && slots[index] === undefined) slots[index] = rest.shift();
    }
  }
  return slots as string[];
}

function defaultSplits(goals: readonly string[]): TextcraftSetup['splits'] {
  const unseen = (id: string) => hashString(`textcraft/unseen/${id}`) % 5 === 0;
  const train = goals.flatMap((id, index) => (unseen(id) ? [] : [index]));
  return {
    train,
    valid_seen: train.map((index) => index + goals.length),
    valid_unseen: goals.flatMap((id, index) => (unseen(id) ? [index] : [])),
  };
}

const generatedWorlds = new Map<string, { world: RecipeWorld; goal: string }>();
function generatedWorld(seed: number, depth: 1 | 2 | 3 | 4) {
  const key = `${depth}/${seed}`;
  let made = generatedWorlds.get(key);
  if (made === undefined) {
    const { recipes, candidates } = generatedTree(seed, depth);
    const world = new RecipeWorld(recipes);
    // The goal: the candidate the oracle crafts in the fewest commands (AgentGym allows 20 rounds).
    const cost = (goal: string) => solve(new TextcraftGame(world, goal)).length;
    const goal = candidates.reduce((best, next) => (cost(next) < cost(best) ? next : best));
    made = { world, goal };
    if (generatedWorlds.size >= 64) generatedWorlds.delete(generatedWorlds.keys().next().value!);
    generatedWorlds.set(key, made);
  }
  return made;
}

const TASK_ID = /^([a-z_0-9]+)-(0|[1-9]\d{0,14})$/;

/** Resolves world options into a setup (loads `recipesDir` once per process). */
export function resolveSetup(options: WorldOptions | undefined): TextcraftSetup {
  const { recipesDir, fileOrder, pinnedGoals, splits, traversal } = parseOrThrow(
    worldOptionsSchema,
    options ?? {},
    'textcraft world options',
  );
  const world = recipesDir === undefined ? builtinRecipeWorld() : loadRecipeWorld(recipesDir, fileOrder);
  const goals = goalOrder(world, pinnedGoals);
  const resolvedSplits =
    splits === undefined
      ? defaultSplits(goals)
      : {
          train: splits.train,
          valid_seen: splits.valid_seen ?? splits.train.map((index) => index + goals.length),
          valid_unseen: splits.valid_unseen,
        };

  /** The engine of an episode: under the 2024 traversal, with the lists a fresh server's walk from the goal leaves. */
  const gameOf = (episodeWorld: RecipeWorld, goal: string) => {
    const craftLists = traversal === '2024' ? lists2024(episodeWorld, goal) : undefined;
    return new TextcraftGame(
      episodeWorld,
      goal,
      craftLists === undefined ? undefined : (id) => craftLists.get(id) ?? episodeWorld.itemRecipes.get(id),
    );
  };

  const episode = (
    episodeWorld: RecipeWorld,
    goal: string,
    dataIdx: number | undefined,
    listingSeed: string,
  ) => {
    const { recipes, lines } = craftingListing(episodeWorld, goal, createRng(listingSeed));
    const goalText = itemIdToText(goal);
    return {
      world: episodeWorld,
      goal,
      goalText,
      dataIdx,
      listing: recipes,
      opening: textcraftOpening(lines.join('\n'), goalText),
      game: gameOf(episodeWorld, goal),
    };
  };

  const listed = (task: ListedTask): EpisodeStart => {
    const { goal: given, commands } = parseOrThrow(listedTaskSchema, task, 'textcraft task');
    const goal = given.startsWith('minecraft:') ? given : textToItemId(given);
    if (!world.itemIds.has(goal)) {
      throw new InvalidArgumentError(
        `textcraft task: goal "${given}" is not an item of this recipe world (${goal}); give an item id such as "${world.goals()[0]?.itemId ?? 'minecraft:stick'}" or its words`,
      );
    }
    const text = typeof commands === 'string' ? commands : commands.join('\n');
    const listing = text.split('\n').flatMap((line, k) => {
      if (line === '') return [];
      const recipe = recipeOfLine(world, line);
      if (recipe === undefined) {
        throw new InvalidArgumentError(
          `textcraft task: commands line ${k + 1} "${line.slice(0, 200)}" is not a recipe of this recipe world; each line must be a listing line such as "${world.text(world.recipesOf(goal)[0] ?? [...world.itemRecipes.values()][0]![0]!)}"`,
        );
      }
      return [recipe];
    });
    const goalText = itemIdToText(goal);
    return {
      world,
      goal,
      goalText,
      dataIdx: undefined,
      listing,
      opening: textcraftOpening(text, goalText),
      game: gameOf(world, goal),
    };
  };

  return {
    world,
    goals,
    splits: resolvedSplits,
    traversal,
    listed,
    start(seed, taskId) {
      if (taskId === undefined) {
        return episode(world, goals[seed % goals.length]!, seed, `textcraft/listing/${seed}`);
      }
      const match = TASK_ID.exec(taskId);
      const split = match?.[1];
      const index = Number(match?.[2]);
      const generated = (GENERATED_SPLITS as readonly string[]).indexOf(split ?? '');
      if (generated !== -1) {
        const made = generatedWorld(index, (generated + 1) as 1 | 2 | 3 | 4);
        return episode(made.world, made.goal, undefined, `textcraft/generated-listing/${taskId}`);
      }
      const dataIdx =
        split !== undefined && Object.hasOwn(resolvedSplits, split)
          ? resolvedSplits[split as (typeof SPLITS)[number]][index]
          : undefined;
      if (dataIdx === undefined) {
        const sizes = SPLITS.map((name) => `${name} (${resolvedSplits[name].length})`).join(', ');
        throw new NotFoundError(
          `textcraft: no task "${taskId}"; task ids are "<split>-<index>" with an index below the split's size: ${sizes}, or "generated_depth_<1-4>-<n>" for any n`,
        );
      }
      return episode(world, goals[dataIdx % goals.length]!, dataIdx, `textcraft/listing/${dataIdx}`);
    },
  };
}
