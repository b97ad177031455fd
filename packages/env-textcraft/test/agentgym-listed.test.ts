// Replays test/fixtures/agentgym-listed.jsonl (made by reference/generate-fixtures.ts with AgentGym's
// own TextCraft on the built-in recipe world, see test/fixtures/SOURCES.md): each episode reset with
// its goal and the listing AgentGym showed (`reset({ seed, goal, commands })`) gives AgentGym's
// opening, then AgentGym's answer, reward and `terminated` to every command, under the 2024 traversal
// (AgentGym's data_idx reset on a fresh server) and under the 2025 rules (its reset(commands, goal)).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTextcraftEnv, resolveSetup } from '../src/index';

const episodeSchema = z.strictObject({
  id: z.string(),
  dialect: z.enum(['2024', '2025']),
  goal: z.string().startsWith('minecraft:'),
  opening: z.string(),
  steps: z
    .array(
      z.strictObject({
        action: z.string(),
        observation: z.string(),
        reward: z.union([z.literal(0), z.literal(1)]),
        terminated: z.boolean(),
      }),
    )
    .min(1),
});
const episodes = readFileSync(join(import.meta.dirname, 'fixtures/agentgym-listed.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((line) => episodeSchema.parse(JSON.parse(line)));

const listingOf = (opening: string) =>
  /^Crafting commands:\n([\s\S]*)\n\nGoal: craft .+\.$/.exec(opening)![1]!;

describe("AgentGym's TextCraft on a goal with its listing (fixtures from the original)", () => {
  it('has six goals of depths 1-4 under both rules, each ending on the step that crafts the goal', () => {
    expect(episodes).toHaveLength(12);
    expect(episodes.filter((e) => e.dialect === '2024')).toHaveLength(6);
    for (const episode of episodes) {
      const last = episode.steps.at(-1)!;
      expect(last.terminated && last.reward === 1, episode.id).toBe(true);
      expect(episode.steps.slice(0, -1).some((step) => step.terminated)).toBe(false);
    }
  });

  it('gives every opening, answer, reward and terminated of the original, both traversal dialects', async () => {
    const mismatches: string[] = [];
    let steps = 0;
    for (const episode of episodes) {
      const env = createTextcraftEnv({
        traversal: episode.dialect === '2024' ? '2024' : 'fixed',
        maxSteps: 100,
      });
      const first = await env.reset({ seed: 0, goal: episode.goal, commands: listingOf(episode.opening) });
      if (first.observation !== episode.opening) mismatches.push(`${episode.id}: opening`);
      for (const [k, step] of episode.steps.entries()) {
        const ours = await env.step(step.action);
        steps += 1;
        const theirs = { observation: step.observation, reward: step.reward, terminated: step.terminated };
        const mine = { observation: ours.observation, reward: ours.reward, terminated: ours.terminated };
        if (JSON.stringify(mine) !== JSON.stringify(theirs))
          mismatches.push(`${episode.id} step ${k} (${step.action}): ${JSON.stringify(mine)}`);
      }
    }
    expect(mismatches).toEqual([]);
    expect(steps).toBe(128);
  });

  it("plays the engine the same way: TextcraftGame reports done on the original's terminated", () => {
    for (const traversal of ['2024', 'fixed'] as const) {
      const setup = resolveSetup({ traversal });
      for (const episode of episodes.filter((e) => (e.dialect === '2024') === (traversal === '2024'))) {
        const { game } = setup.listed({ goal: episode.goal, commands: listingOf(episode.opening) });
        const done = episode.steps.map((step) => game.step(step.action).done);
        expect(done, episode.id).toEqual(episode.steps.map((step) => step.terminated));
      }
    }
  });

  it('parts the two rules first at the craft of the goal from a recipe below it (quirk Q1), on every goal of depth 2 or more', () => {
    const byGoal = new Map<string, Record<string, string[]>>();
    for (const episode of episodes) {
      const answers = byGoal.get(episode.goal) ?? {};
      answers[episode.dialect] = episode.steps.map((step) => step.observation);
      byGoal.set(episode.goal, answers);
    }
    let parted = 0;
    for (const [goal, answers] of byGoal) {
      const old = answers['2024']!;
      const fixed = answers['2025']!;
      const k = old.findIndex((answer, n) => answer !== fixed[n]);
      if (k === -1) continue;
      parted += 1;
      expect(old[k], goal).toMatch(/^Crafted \d+ minecraft:/);
      expect(fixed[k], goal).toMatch(/^Could not find a valid recipe for ItemTagWithCount/);
    }
    expect(parted).toBe(4);
  });
});
