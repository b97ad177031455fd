// AgentGym's 2024 `traverse_recipe_tree` (quirk Q1): it extends the recipe lists of the tree itself
// while walking them, so after one reset the goal's list (and every list it passed through) also
// holds the recipes below it, and `craft` accepts those: `craft 4 birch stairs using 1 birch logs`
// answers `Crafted 4 minecraft:birch_planks`. Played here on per-episode copies of the lists (one
// traversal from the loaded world, as on a fresh server), so episodes stay independent.
import { EnvError } from '@pilotrl/core';
import { nameOf, type Recipe, type RecipeWorld } from './world';

/** Work past which a traversal is refused: the 2024 walk grows lists multiplicatively in deep worlds. */
const MAX_APPENDED = 2_000_000;

/**
 * The recipe lists `craft` scans after AgentGym 2024's traversal from `goal`: for each item whose
 * list the walk extended, that list in first-occurrence order (repeats change no `craft` answer).
 */
export function lists2024(world: RecipeWorld, goal: string): Map<string, Recipe[]> {
  const lists = new Map<string, Recipe[]>();
  let appended = 0;
  const listOf = (name: string): Recipe[] | undefined => {
    let list = lists.get(name);
    if (list === undefined) {
      const own = world.itemRecipes.get(name) ?? world.tagRecipes.get(name);
      if (own === undefined) return undefined;
      list = [...own];
      lists.set(name, list);
    }
    return list;
  };
  const traverse = (name: string, visited: ReadonlySet<string>): readonly Recipe[] => {
    if (visited.has(name)) return [];
    const recipes = listOf(name);
    if (recipes === undefined) return [];
    // The list grows while it is walked, as Python's `for recipe in recipes: recipes.extend(...)`.
    for (let i = 0; i < recipes.length; i++) {
      const next = new Set(visited).add(name);
      for (const input of recipes[i]!.inputs) {
        const found = traverse(nameOf(input.itemTag), next);
        appended += found.length;
        if (appended > MAX_APPENDED) {
          throw new EnvError(
            `textcraft: the 2024 recipe traversal from ${goal} grows past ${MAX_APPENDED} entries in this recipe world; use traversal: 'fixed'`,
          );
        }
        recipes.push(...found);
      }
    }
    return recipes;
  };
  traverse(goal, new Set());
  const deduplicated = new Map<string, Recipe[]>();
  // `craft` looks outputs up among item lists only; tag lists matter just during the walk.
  for (const [name, list] of lists) {
    if (world.itemRecipes.has(name)) deduplicated.set(name, [...new Set(list)]);
  }
  return deduplicated;
}
