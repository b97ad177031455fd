// Loading a recipe world from a directory of recipe JSON files (TextCraft's `recipes/` folder, the
// Minecraft 1.16 data-pack format). Every file is checked; a file that is not JSON or not a recipe
// is an error that names it. The order files load in decides which of two inverse recipes
// survives (see `RecipeWorld`), so it is fixed: sorted names, with AgentGym's two corrections.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describeIssues, InvalidArgumentError, NotFoundError, ParseError } from '@pilotrl/core';
import { CRAFTING_TYPES, craftingRecipeSchema, type NamedRecipe, recipeTypeSchema } from './recipe-file';
import { RecipeWorld } from './world';

/**
 * `agentgym`: sorted file names, then `iron_nugget.json` before `iron_ingot_from_nuggets.json` and
 * `honey_bottle.json` before `honey_block.json`: the order that reproduces AgentTraj-L's world
 * (iron ingot gettable, gold ingot and honey bottle craftable). `sorted`: sorted names only.
 */
export type FileOrder = 'agentgym' | 'sorted';

const AGENTGYM_MOVES: ReadonlyArray<readonly [moved: string, before: string]> = [
  ['iron_nugget.json', 'iron_ingot_from_nuggets.json'],
  ['honey_bottle.json', 'honey_block.json'],
];

/** File names in load order. */
export function orderRecipeFiles(names: readonly string[], order: FileOrder): string[] {
  const sorted = [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (order === 'sorted') return sorted;
  for (const [moved, before] of AGENTGYM_MOVES) {
    const from = sorted.indexOf(moved);
    const to = sorted.indexOf(before);
    if (from === -1 || to === -1 || from < to) continue;
    sorted.splice(from, 1);
    sorted.splice(to, 0, moved);
  }
  return sorted;
}

/** Checks one recipe file's content; undefined for a recipe type TextCraft does not craft with. */
export function parseRecipeFile(source: string, value: unknown): NamedRecipe | undefined {
  const typed = recipeTypeSchema.safeParse(value);
  if (!typed.success) {
    throw new ParseError(source, undefined, `not a recipe: ${describeIssues(typed.error.issues).join('; ')}`);
  }
  if (!CRAFTING_TYPES.includes(typed.data.type)) return undefined;
  const recipe = craftingRecipeSchema.safeParse(value);
  if (!recipe.success) {
    throw new ParseError(
      source,
      undefined,
      `not a valid ${typed.data.type} recipe: ${describeIssues(recipe.error.issues).join('; ')}`,
    );
  }
  return { name: source, recipe: recipe.data };
}

/** Reads every `*.json` file of `dir` (not its subfolders) in load order. */
export function readRecipeDir(dir: string, order: FileOrder = 'agentgym'): NamedRecipe[] {
  const full = resolve(dir);
  let names: string[];
  try {
    names = readdirSync(full, { withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith('.json'))
      .map((entry) => entry.name);
  } catch (error) {
    throw new NotFoundError(
      `textcraft: cannot read the recipes directory ${full} (${(error as Error).message}); pass recipesDir pointing at a folder of recipe JSON files`,
      { cause: error },
    );
  }
  const recipes: NamedRecipe[] = [];
  for (const name of orderRecipeFiles(names, order)) {
    const path = join(full, name);
    let value: unknown;
    try {
      value = JSON.parse(readFileSync(path, 'utf8'));
    } catch (error) {
      throw new ParseError(path, undefined, `not valid JSON: ${(error as Error).message}`, { cause: error });
    }
    const recipe = parseRecipeFile(path, value);
    if (recipe !== undefined) recipes.push({ name, recipe: recipe.recipe });
  }
  if (recipes.length === 0) {
    throw new InvalidArgumentError(
      `textcraft: ${full} holds no crafting recipes (${names.length} JSON files, none of type ${CRAFTING_TYPES.join(' or ')}); pass recipesDir pointing at TextCraft's recipes folder`,
    );
  }
  return recipes;
}

const worldsByDir = new Map<string, RecipeWorld>();

/**
 * The recipe world of a directory, loaded once per process and directory (files changed later are
 * not seen). A world without a single goal (no recipe of depth 1 or more) is an error.
 */
export function loadRecipeWorld(dir: string, order: FileOrder = 'agentgym'): RecipeWorld {
  const key = `${order}:${resolve(dir)}`;
  let world = worldsByDir.get(key);
  if (world === undefined) {
    world = new RecipeWorld(readRecipeDir(dir, order));
    if (world.goals().length === 0) {
      throw new InvalidArgumentError(`textcraft: the recipes in ${resolve(dir)} give no craftable goal`);
    }
    worldsByDir.set(key, world);
  }
  return world;
}
