import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NotFoundError, ParseError } from '@pilotrl/core';
import { describe, expect, it } from 'vitest';
import { createTextcraftEnv, loadRecipeWorld, orderRecipeFiles } from './index';

/** A fresh recipes folder holding `files` (name → JSON value or raw text). */
function recipesDir(files: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'textcraft-recipes-'));
  for (const [name, content] of Object.entries(files)) {
    writeFileSync(join(dir, name), typeof content === 'string' ? content : JSON.stringify(content));
  }
  return dir;
}

const shapeless = (output: string, inputs: string[], count = 1) => ({
  type: 'minecraft:crafting_shapeless',
  ingredients: inputs.map((item) => ({ item: `minecraft:${item}` })),
  result: { item: `minecraft:${output}`, count },
});

describe('textcraft recipesDir', () => {
  it('names the file of a malformed recipe', () => {
    const broken = recipesDir({ 'a.json': shapeless('rope', ['fiber']), 'b.json': '{ not json' });
    expect(() => loadRecipeWorld(broken)).toThrow(ParseError);
    expect(() => loadRecipeWorld(broken)).toThrow(/b\.json: not valid JSON/);
    const wrong = recipesDir({
      'c.json': { type: 'minecraft:crafting_shaped', pattern: ['#'], result: 'minecraft:x' },
    });
    expect(() => loadRecipeWorld(wrong)).toThrow(
      /c\.json: not a valid minecraft:crafting_shaped recipe: .*key/,
    );
    const foreign = recipesDir({
      'd.json': { ...shapeless('rope', ['fiber']), result: { item: 'mymod:rope' } },
    });
    expect(() => loadRecipeWorld(foreign)).toThrow(/d\.json: .*minecraft namespace/);
  });

  it('refuses a missing folder and one without crafting recipes', () => {
    expect(() => loadRecipeWorld(join(tmpdir(), 'no-such-textcraft-dir'))).toThrow(NotFoundError);
    const smelting = recipesDir({
      'e.json': { type: 'minecraft:smelting', ingredient: { item: 'minecraft:ore' } },
    });
    expect(() => loadRecipeWorld(smelting)).toThrow(/holds no crafting recipes/);
    const sub = recipesDir({ 'f.json': shapeless('rope', ['fiber']) });
    mkdirSync(join(sub, 'nested.json'));
    expect(loadRecipeWorld(sub).goals()).toEqual([{ itemId: 'minecraft:rope', depth: 1 }]);
  });

  it('keeps the first of two inverse recipes and survives a cycle the load rule misses', async () => {
    // bar ⇄ flake: the flake recipe loads first, so the bar stays gettable.
    const inverse = recipesDir({
      'a_flake.json': shapeless('flake', ['bar'], 9),
      'b_bar.json': shapeless('bar', Array(9).fill('flake')),
    });
    expect(loadRecipeWorld(inverse).isGettable('minecraft:bar')).toBe(true);
    // a ← b, then b ← c, then c ← a: the rule only sees a's inputs as of a's load, so all three load.
    const cycle = recipesDir({
      '1.json': shapeless('a', ['b']),
      '2.json': shapeless('b', ['c']),
      '3.json': shapeless('c', ['a']),
      '4.json': shapeless('d', ['dust']),
    });
    const world = loadRecipeWorld(cycle);
    expect(world.goals()).toEqual([{ itemId: 'minecraft:d', depth: 1 }]);
    const env = createTextcraftEnv({ recipesDir: cycle });
    const first = await env.reset({ seed: 0 });
    expect(first.info.goal).toBe('d');
    expect((await env.step('get 1 dust')).observation).toBe('Got 1 dust');
    expect((await env.step('craft 1 d using 1 dust')).info.won).toBe(true);
  });

  it("orders files as AgentGym's AgentTraj world needs", () => {
    expect(
      orderRecipeFiles(['iron_nugget.json', 'iron_ingot_from_nuggets.json', 'a.json'], 'agentgym'),
    ).toEqual(['a.json', 'iron_nugget.json', 'iron_ingot_from_nuggets.json']);
    expect(orderRecipeFiles(['b.json', 'a.json'], 'sorted')).toEqual(['a.json', 'b.json']);
  });
});
