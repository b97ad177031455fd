import { describe, expect, it } from 'vitest';
import { builtinRecipes, builtinRecipeWorld, createTextcraftTasks, generatedTree } from './index';

describe('textcraft built-in world', () => {
  it('is the same on every run, with depth bands 1-4, tags, shaped and shapeless recipes', () => {
    expect(JSON.stringify(builtinRecipes())).toBe(JSON.stringify(builtinRecipes()));
    const world = builtinRecipeWorld();
    const bands = new Map<number, number>();
    for (const goal of world.goals()) bands.set(goal.depth, (bands.get(goal.depth) ?? 0) + 1);
    expect([...bands.keys()]).toEqual([1, 2, 3, 4]);
    expect([...bands.values()].every((count) => count >= 10)).toBe(true);
    expect(world.tags.has('minecraft:boards')).toBe(true);
    // A tag no group makes turns into an item you get; the unpacking and inverse recipes are dropped.
    expect(world.isGettable('minecraft:cedar_lumber')).toBe(true);
    expect(world.isGettable('minecraft:ember_bar')).toBe(true);
    const types = new Set(builtinRecipes().map(({ recipe }) => recipe.type));
    expect(types).toEqual(new Set(['minecraft:crafting_shaped', 'minecraft:crafting_shapeless']));
  });

  it('generates trees of exactly the asked depth, differently per seed', async () => {
    const tasks = createTextcraftTasks();
    for (const depth of [1, 2, 3, 4] as const) {
      const refs = await tasks.tasks(`generated_depth_${depth}`, { offset: 1000, limit: 5 });
      expect(refs.map((task) => task.taskType)).toEqual(Array(5).fill(`depth-${depth}`));
      expect(new Set(refs.map((task) => task.description)).size).toBeGreaterThan(1);
    }
    expect(generatedTree(3, 2)).toEqual(generatedTree(3, 2));
  });
});
