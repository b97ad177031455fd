// A recipe world: TextCraft's CraftingTree (AgentGym `crafting_tree.py`) built from recipe files in
// a given order. It keeps the loader's rules, because the game's text and its goals follow from them:
// one count per shaped key symbol, merged shapeless duplicates, first of a list of alternatives,
// unpacking recipes (one `*_block` input) dropped, a recipe `group` as its output's group tag, a
// recipe skipped when its output is already among its inputs' transitive inputs (so file order
// decides which of two inverse recipes survives), and input tags that no group resolves turned
// into plain items you can `get`.
import { InvalidArgumentError } from '@pilotrl/core';
import type { IngredientOrAlternatives, NamedRecipe } from './recipe-file';

/** An item id, a tag, or (for a recipe output in a group) both; `name` is the item id, else the tag. */
export interface ItemTag {
  readonly tag: string | undefined;
  readonly itemId: string | undefined;
}
export const nameOf = (itemTag: ItemTag): string => (itemTag.itemId ?? itemTag.tag)!;

export interface IngredientCount {
  /** Replaced by an item id when clean-up finds that no group makes this tag. */
  itemTag: ItemTag;
  readonly count: number;
}

export interface Recipe {
  readonly inputs: readonly IngredientCount[];
  readonly output: { readonly itemTag: ItemTag; readonly count: number };
  /** The file the recipe came from. */
  readonly source: string;
}

/** `minecraft:dark_oak_planks` → `dark oak planks` (TextCraft's `item_id_to_str`). */
export const itemIdToText = (id: string): string => id.replaceAll('minecraft:', '').replaceAll('_', ' ');
/** What the player types for an item → its id (`dark oak planks` → `minecraft:dark_oak_planks`). */
export const textToItemId = (text: string): string => `minecraft:${text.replaceAll(' ', '_')}`;

/** A crafting command line as the listing shows it: `craft 4 stick using 2 planks`. */
export function recipeText(recipe: Recipe): string {
  const inputs = recipe.inputs.map((input) => `${input.count} ${itemIdToText(nameOf(input.itemTag))}`);
  return `craft ${recipe.output.count} ${itemIdToText(nameOf(recipe.output.itemTag))} using ${inputs.join(', ')}`;
}

export class RecipeWorld {
  /** Recipes per output item id, in load order (its key order is the goal order inside a depth band). */
  readonly itemRecipes = new Map<string, Recipe[]>();
  /** Recipes per group tag of their output. */
  readonly tagRecipes = new Map<string, Recipe[]>();
  readonly tags = new Set<string>();
  readonly itemIds = new Set<string>();
  /** An item's group tag (`minecraft:oak_planks` → `minecraft:planks`). */
  readonly groupTagOf = new Map<string, string>();
  private readonly transitiveInputs = new Map<string, Set<string>>();
  private readonly minDepths = new Map<string, number>();
  private readonly recipeTexts = new Map<Recipe, string>();
  private usesCache: Map<string, Recipe[]> | undefined;

  /** Builds the world from crafting recipes in load order (skipped types already left out). */
  constructor(recipes: readonly NamedRecipe[]) {
    for (const named of recipes) this.load(named);
    this.cleanUp();
  }

  private load({ name, recipe }: NamedRecipe): void {
    const inputs: IngredientCount[] = [];
    const ingredientTag = (ingredient: IngredientOrAlternatives): ItemTag => {
      const first = Array.isArray(ingredient) ? ingredient[0]! : ingredient;
      if ('item' in first) {
        this.itemIds.add(first.item);
        return { tag: undefined, itemId: first.item };
      }
      this.tags.add(first.tag);
      return { tag: first.tag, itemId: undefined };
    };
    if (recipe.type === 'minecraft:crafting_shaped') {
      for (const [symbol, ingredient] of Object.entries(recipe.key)) {
        const count = recipe.pattern.reduce((sum, line) => sum + line.split(symbol).length - 1, 0);
        inputs.push({ itemTag: ingredientTag(ingredient), count });
      }
    } else {
      const indexByName = new Map<string, number>();
      for (const ingredient of recipe.ingredients) {
        const itemTag = ingredientTag(ingredient);
        const index = indexByName.get(nameOf(itemTag));
        if (index === undefined) {
          indexByName.set(nameOf(itemTag), inputs.length);
          inputs.push({ itemTag, count: 1 });
        } else {
          inputs[index] = { itemTag, count: inputs[index]!.count + 1 };
        }
      }
    }
    const outputId = typeof recipe.result === 'string' ? recipe.result : recipe.result.item;
    const outputCount = typeof recipe.result === 'string' ? 1 : (recipe.result.count ?? 1);
    this.itemIds.add(outputId);
    // Unpacking a storage block would make every block a cycle with its contents.
    if (inputs.length === 1 && nameOf(inputs[0]!.itemTag).endsWith('_block')) return;
    let outputTag: string | undefined;
    if (recipe.group !== undefined) {
      outputTag = `minecraft:${recipe.group}`;
      if (outputTag !== outputId) {
        this.tags.add(outputTag);
        this.groupTagOf.set(outputId, outputTag);
      }
    }
    const made: Recipe = {
      inputs,
      output: { itemTag: { tag: outputTag, itemId: outputId }, count: outputCount },
      source: name,
    };
    let dependencies = this.transitiveInputs.get(outputId);
    if (dependencies === undefined) {
      dependencies = new Set();
      this.transitiveInputs.set(outputId, dependencies);
    }
    if (inputs.some((input) => this.transitiveInputs.get(nameOf(input.itemTag))?.has(outputId))) return;
    pushTo(this.itemRecipes, outputId, made);
    for (const input of inputs) {
      const inputName = nameOf(input.itemTag);
      dependencies.add(inputName);
      for (const deeper of this.transitiveInputs.get(inputName) ?? []) dependencies.add(deeper);
    }
    if (outputTag !== undefined) pushTo(this.tagRecipes, outputTag, made);
  }

  /** Input tags that no item with a recipe belongs to become plain items (`logs`, `wooden slabs`). */
  private cleanUp(): void {
    const newItems = new Set<string>();
    for (const recipes of this.itemRecipes.values()) {
      for (const recipe of recipes) {
        for (const input of recipe.inputs) {
          if (input.itemTag.itemId !== undefined) continue;
          const tag = input.itemTag.tag!;
          const craftable = [...this.groupTagOf].some(
            ([itemId, group]) => group === tag && this.itemRecipes.has(itemId),
          );
          if (!craftable) {
            input.itemTag = { tag: undefined, itemId: tag };
            newItems.add(tag);
          }
        }
      }
    }
    for (const item of newItems) {
      this.itemIds.add(item);
      this.tags.delete(item);
    }
  }

  /** The listing line of a recipe. */
  text(recipe: Recipe): string {
    let text = this.recipeTexts.get(recipe);
    if (text === undefined) {
      text = recipeText(recipe);
      this.recipeTexts.set(recipe, text);
    }
    return text;
  }

  isCraftable(name: string): boolean {
    return this.itemRecipes.has(name) || this.tagRecipes.has(name);
  }

  /** What `get` hands out: a known item id that is neither craftable nor a tag. */
  isGettable(itemId: string): boolean {
    return this.itemIds.has(itemId) && !this.isCraftable(itemId) && !this.tags.has(itemId);
  }

  /** The recipes of an item id or of a group tag (TextCraft looks the item up first). */
  recipesOf(name: string): readonly Recipe[] {
    const own = this.itemRecipes.get(name);
    return own !== undefined && own.length > 0 ? own : (this.tagRecipes.get(name) ?? []);
  }

  /**
   * The fewest crafting levels below an item: 0 for what you `get`, 1 + the deepest input for a
   * recipe, the shallowest recipe for an item. Where the original would recurse forever (a cycle
   * the load-time rule missed, e.g. through a tag), a recipe whose inputs lead only back into the
   * cycle does not count, and an item with no other recipe gets `Infinity` (it is never a goal).
   */
  minDepth(name: string): number {
    return this.depthOf(name, new Set());
  }

  private depthOf(name: string, visiting: Set<string>): number {
    const known = this.minDepths.get(name);
    if (known !== undefined) return known;
    if (visiting.has(name)) return Number.POSITIVE_INFINITY;
    const recipes = this.recipesOf(name);
    if (recipes.length === 0) return 0;
    visiting.add(name);
    let best = Number.POSITIVE_INFINITY;
    let cut = false;
    for (const recipe of recipes) {
      let deepest = 0;
      for (const input of recipe.inputs) {
        const inputName = nameOf(input.itemTag);
        const depth = this.depthOf(inputName, visiting) + 1;
        if (depth === Number.POSITIVE_INFINITY && visiting.has(inputName)) cut = true;
        deepest = Math.max(deepest, depth);
      }
      best = Math.min(best, deepest);
    }
    visiting.delete(name);
    // A depth found while a cycle was cut short may be too deep; only a complete one is kept.
    if (!cut || visiting.size === 0) this.minDepths.set(name, best);
    return best;
  }

  /** Every input name → the recipes that use it (an item's and a tag's lists both count, as in TextCraft). */
  uses(): ReadonlyMap<string, readonly Recipe[]> {
    if (this.usesCache === undefined) {
      const uses = new Map<string, Recipe[]>();
      for (const lists of [this.itemRecipes, this.tagRecipes]) {
        for (const recipes of lists.values()) {
          for (const recipe of recipes) {
            for (const input of recipe.inputs) pushTo(uses, nameOf(input.itemTag), recipe);
          }
        }
      }
      this.usesCache = uses;
    }
    return this.usesCache;
  }

  /**
   * The recipes reachable from `name`: its own, then those of each input, recursively (the set
   * TextCraft's `traverse_recipe_tree` lists). In first-reached order, without repeats.
   */
  closure(name: string): Recipe[] {
    const seen = new Set<Recipe>();
    const visited = new Set<string>();
    const queue = [name];
    while (queue.length > 0) {
      const next = queue.shift()!;
      if (visited.has(next)) continue;
      visited.add(next);
      for (const recipe of this.recipesOf(next)) {
        if (seen.has(recipe)) continue;
        seen.add(recipe);
        for (const input of recipe.inputs) queue.push(nameOf(input.itemTag));
      }
    }
    return [...seen];
  }

  /** The craftable items with their depth, shallowest first, load order inside a depth (TextCraft's goal list). */
  goals(): Array<{ itemId: string; depth: number }> {
    const goals: Array<{ itemId: string; depth: number }> = [];
    for (const itemId of this.itemRecipes.keys()) {
      const depth = this.minDepth(itemId);
      if (depth >= 1 && Number.isFinite(depth)) goals.push({ itemId, depth });
    }
    return goals.sort((a, b) => a.depth - b.depth);
  }

  /** Item ids `get` hands out, in a stable order (sorted). */
  baseItems(): string[] {
    return [...this.itemIds].filter((id) => this.isGettable(id)).sort();
  }
}

function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

/** An error about recipe data that names where the problem is. */
export function recipeDataError(where: string, problem: string): InvalidArgumentError {
  return new InvalidArgumentError(`textcraft recipes: ${where}: ${problem}`);
}
