// The crafting-command listing of an episode, by TextCraft's rule (AgentGym `environment.py`
// `reset`): every recipe reachable from the goal, plus up to 10 distractors (recipes that use one of
// those recipes' inputs, at most 10 drawn per input), shuffled. AgentGym's own listing order and
// distractor draw depend on Python's per-process string hashing, so no port can repeat them; this
// one draws them from a seeded generator, the same on every machine.
import type { Rng } from '@pilotrl/core';
import { nameOf, type Recipe, type RecipeWorld } from './world';

const MAX_DISTRACTORS = 10;

/** Draws `count` distinct elements in random order (Python's `random.sample`). */
function sample<T>(rng: Rng, items: readonly T[], count: number): T[] {
  const pool = [...items];
  const drawn: T[] = [];
  for (let i = 0; i < count; i++) drawn.push(pool.splice(rng.int(pool.length), 1)[0]!);
  return drawn;
}

/** The recipes of the listing (closure first, then distractors), and its lines in shown order. */
export function craftingListing(
  world: RecipeWorld,
  goal: string,
  rng: Rng,
): { recipes: Recipe[]; lines: string[] } {
  const closure = world.closure(goal);
  const closureTexts = new Set(closure.map((recipe) => world.text(recipe)));
  const uses = world.uses();
  const distractors = new Map<string, Recipe>();
  for (const recipe of closure) {
    for (const input of recipe.inputs) {
      const users = uses.get(nameOf(input.itemTag)) ?? [];
      for (const user of sample(rng, users, Math.min(users.length, MAX_DISTRACTORS))) {
        const text = world.text(user);
        if (!closureTexts.has(text) && !distractors.has(text)) distractors.set(text, user);
      }
    }
  }
  const extras = sample(rng, [...distractors.keys()], Math.min(distractors.size, MAX_DISTRACTORS));
  const byText = new Map<string, Recipe>();
  for (const recipe of closure) if (!byText.has(world.text(recipe))) byText.set(world.text(recipe), recipe);
  for (const text of extras) byText.set(text, distractors.get(text)!);
  const lines = rng.shuffle([...byText.keys()]);
  return { recipes: lines.map((line) => byText.get(line)!), lines };
}
