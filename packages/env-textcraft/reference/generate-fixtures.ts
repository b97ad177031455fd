// Regenerates test/fixtures/agentgym-listed.jsonl: TextCraft episodes played by AgentGym's own
// TextCraft (reference/play-agentgym.py drives its TextCraftEnv and CraftingTree) on this package's
// built-in recipe world, written out as recipe files, so the fixture holds no Minecraft data. Six
// goals (depths 1-4), each under both rules: "2024" (a reset by data_idx on a fresh server: the
// released traversal extends the recipe lists, quirk Q1) and "2025" (`reset(commands=…, goal=…)`
// with that kind of listing on a fresh tree, which walks nothing). The commands: the inventory, a get
// of the goal, a craft of the goal from the inputs of a recipe below it (Q1's probe), a malformed
// ingredient, the inventory again, a miscased command, then our oracle's commands to the goal.
// Needs AgentGym's `agentenv-textcraft` folder (not on PyPI; commit 92479203) and a Python with numpy
// and gymnasium (default: the BabyAI reference venv, packages/env-babyai/reference/setup.sh):
//   AGENTENV_TEXTCRAFT=/path/to/AgentGym/agentenv-textcraft \
//   node --conditions=@pilotrl/source --import tsx packages/env-textcraft/reference/generate-fixtures.ts
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { TextcraftGame } from '../src/game';
import { builtinRecipes } from '../src/generate-world';
import { solve } from '../src/oracle';
import { builtinRecipeWorld } from '../src/setup';
import { itemIdToText, nameOf } from '../src/world';

const agentgym = process.env.AGENTENV_TEXTCRAFT;
if (agentgym === undefined) {
  console.error(
    "Set AGENTENV_TEXTCRAFT to the folder holding AgentGym's agentenv_textcraft/ (see the comment at the top).",
  );
  process.exit(1);
}
const repoRoot = resolve(import.meta.dirname, '../../..');
const python = process.env.PYTHON ?? join(repoRoot, '.venv/babyai-reference/bin/python');

const world = builtinRecipeWorld();
const goals = world.goals();
/** The first goals of each depth (two of depths 1 and 2) that have a recipe below them made of gettable items only. */
const picked = [1, 1, 2, 2, 3, 4].map((depth, k, all) => {
  const nth = all.slice(0, k).filter((d) => d === depth).length;
  const candidates = goals.filter(
    (goal) => goal.depth === depth && (depth === 1 || probeRecipe(goal.itemId) !== undefined),
  );
  return candidates[nth]!.itemId;
});

/** A recipe below the goal (not its own) whose inputs are all items to get. */
function probeRecipe(goal: string) {
  const own = new Set(world.itemRecipes.get(goal) ?? []);
  return world
    .closure(goal)
    .find(
      (recipe) =>
        !own.has(recipe) &&
        recipe.inputs.every(
          (input) => input.itemTag.itemId !== undefined && world.isGettable(input.itemTag.itemId),
        ),
    );
}

function actionsFor(goal: string): string[] {
  const text = itemIdToText(goal);
  const actions = ['inventory', `get 1 ${text}`];
  const probe = probeRecipe(goal);
  if (probe !== undefined) {
    const inputs = probe.inputs.map((input) => `${input.count} ${itemIdToText(nameOf(input.itemTag))}`);
    actions.push(...inputs.map((input) => `get ${input}`), `craft 1 ${text} using ${inputs.join(', ')}`);
  }
  actions.push('inventory', `craft 1 ${text} using two boards`, 'Inventory');
  return [...actions, ...solve(new TextcraftGame(world, goal))];
}

const dir = mkdtempSync(join(tmpdir(), 'textcraft-builtin-recipes-'));
try {
  mkdirSync(join(dir, 'recipes'));
  // Numbered so that sorted names are the built-in world's load order.
  builtinRecipes().forEach(({ recipe }, k) => {
    writeFileSync(join(dir, 'recipes', `${String(k).padStart(4, '0')}.json`), JSON.stringify(recipe));
  });
  const jobs = picked.flatMap((goal) =>
    (['2024', '2025'] as const).map((dialect) => ({
      id: `${itemIdToText(goal)}/${dialect}`,
      dialect,
      goal,
      actions: actionsFor(goal),
    })),
  );
  const output = execFileSync(python, [join(import.meta.dirname, 'play-agentgym.py'), agentgym, dir], {
    input: `${jobs.map((job) => JSON.stringify(job)).join('\n')}\n`,
    encoding: 'utf8',
    env: { ...process.env, PYTHONHASHSEED: '0' },
  });
  const file = join(import.meta.dirname, '../test/fixtures/agentgym-listed.jsonl');
  mkdirSync(join(import.meta.dirname, '../test/fixtures'), { recursive: true });
  writeFileSync(file, output);
  const episodes = output
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { id: string; steps: { terminated: boolean }[] });
  console.log(
    `wrote ${episodes.length} episodes (${episodes.reduce((n, e) => n + e.steps.length, 0)} steps) to ${file}`,
  );
  for (const episode of episodes)
    console.log(`  ${episode.id}: ${episode.steps.length} steps, won ${episode.steps.at(-1)?.terminated}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
