// TextCraft's oracle: gets and crafts the goal along the shallowest recipes, choosing for a tag
// ingredient (`planks`) the group member that is quickest to obtain. It plays each command on a copy
// of the episode's engine, so what it returns is what the env accepts.
import { EnvError } from '@pilotrl/core';
import type { TextcraftGame } from './game';
import { itemIdToText, nameOf, type Recipe, type RecipeWorld } from './world';

/** The cheapest way to obtain an item id: `get` (depth 0) or its shallowest recipe. */
function shallowestRecipe(world: RecipeWorld, itemId: string): Recipe | undefined {
  let best: Recipe | undefined;
  let bestDepth = Number.POSITIVE_INFINITY;
  for (const recipe of world.itemRecipes.get(itemId) ?? []) {
    const depth = Math.max(...recipe.inputs.map((input) => world.minDepth(nameOf(input.itemTag)) + 1));
    if (depth < bestDepth) {
      best = recipe;
      bestDepth = depth;
    }
  }
  return best;
}

/** The item of a group tag that is quickest to obtain (gettable first, then the shallowest). */
function memberOf(world: RecipeWorld, tag: string): string {
  let best: string | undefined;
  let bestDepth = Number.POSITIVE_INFINITY;
  for (const [itemId, group] of world.groupTagOf) {
    if (group !== tag) continue;
    const depth = world.isGettable(itemId)
      ? 0
      : world.itemRecipes.has(itemId)
        ? world.minDepth(itemId)
        : Infinity;
    if (depth < bestDepth) {
      best = itemId;
      bestDepth = depth;
    }
  }
  if (best === undefined) throw new EnvError(`textcraft oracle: no item of ${tag} can be obtained`);
  return best;
}

/** Commands that craft the goal from the game's current state; `game` is played along. */
export function solve(game: TextcraftGame): string[] {
  const { world } = game;
  const actions: string[] = [];
  const held = (itemId: string) => game.inventory.get(itemId) ?? 0n;
  const play = (action: string) => {
    const step = game.step(action);
    if (!step.executed) {
      throw new EnvError(
        `textcraft oracle: "${action}" was refused (${step.observation}) on the way to ${game.goal}`,
      );
    }
    actions.push(action);
  };
  const obtain = (itemId: string, amount: bigint, depth: number): void => {
    if (depth > 64) throw new EnvError(`textcraft oracle: the recipes of ${game.goal} nest too deep`);
    while (held(itemId) < amount) {
      if (world.isGettable(itemId)) {
        // The amount a recipe takes, even when some is held: the amounts the env lists.
        play(`get ${amount} ${itemIdToText(itemId)}`);
        continue;
      }
      const recipe = shallowestRecipe(world, itemId);
      if (recipe === undefined)
        throw new EnvError(`textcraft oracle: ${itemId} can be neither got nor crafted`);
      const inputs = recipe.inputs.map((input) => ({
        itemId: input.itemTag.itemId ?? memberOf(world, input.itemTag.tag!),
        count: BigInt(input.count),
      }));
      const totals = new Map<string, bigint>();
      for (const input of inputs) totals.set(input.itemId, (totals.get(input.itemId) ?? 0n) + input.count);
      // Obtaining one input can use up another (sticks from planks), so check them all again.
      for (let round = 0; [...totals].some(([id, total]) => held(id) < total); round++) {
        if (round > 8)
          throw new EnvError(`textcraft oracle: the inputs of ${itemId} keep using each other up`);
        for (const [id, total] of totals) obtain(id, total, depth + 1);
      }
      const using = inputs.map((input) => `${input.count} ${itemIdToText(input.itemId)}`).join(', ');
      play(`craft ${recipe.output.count} ${itemIdToText(itemId)} using ${using}`);
    }
  };
  obtain(game.goal, 1n, 0);
  return actions;
}
