// The 50 golden games of shared/env-data (LMRL-Gym's game under AgentGym's server, seeds 0-24, two
// vocabularies): a scripted player (first the invalid "x y z z y", then always the first word still
// consistent with the feedback) must get every `/wordle/step` answer the original gave.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { envDataDir, fixture } from '../../../tooling/env-data';
import { WordleGame } from '../src/game';
import { createWordleEnv, spaced, type Vocabulary } from '../src/index';

const stepSchema = z.object({
  action: z.string(),
  observation: z.string(),
  reward: z.number(),
  done: z.boolean(),
});
const goldenSchema = z.record(
  z.string(),
  z.array(z.object({ seed: z.number().int(), steps: z.array(stepSchema) })),
);

const path = fixture('wordle/derived__abdulhaim__LMRL-Gym@83abeed/golden-games.json');

describe.skipIf(path === undefined)(
  `golden Wordle games${path === undefined ? ` (skipped: no fixtures under ${envDataDir})` : ''}`,
  () => {
    const golden = path === undefined ? {} : goldenSchema.parse(JSON.parse(readFileSync(path, 'utf8')));

    it('has 25 games for each of the two vocabularies', () => {
      expect(Object.keys(golden).sort()).toEqual(['tweet_words.txt', 'wordle_official_400.txt']);
      for (const games of Object.values(golden))
        expect(games.map((g) => g.seed)).toEqual([...Array(25).keys()]);
    });

    it('reproduces every step of the 50 games, actions chosen by the scripted player', async () => {
      let games = 0;
      let steps = 0;
      const mismatches: string[] = [];
      for (const [file, recorded] of Object.entries(golden)) {
        const vocabulary = file.replace(/\.txt$/, '') as Vocabulary;
        const env = createWordleEnv({ vocabulary, opening: 'server' });
        for (const { seed, steps: expected } of recorded) {
          games++;
          await env.reset({ seed });
          // A shadow game tells the scripted player which words are still consistent.
          const shadow = new WordleGame({ vocabulary, secret: 'redraw', seed, target: '' });
          for (const [i, step] of expected.entries()) {
            const action = i === 0 ? 'x y z z y' : spaced(shadow.candidates[0]!);
            shadow.guess(action);
            const result = await env.step(action);
            steps++;
            const got = {
              action,
              observation: result.observation,
              reward: result.reward,
              done: result.terminated,
            };
            if (JSON.stringify(got) !== JSON.stringify(step)) {
              mismatches.push(
                `${file} seed ${seed} step ${i + 1}: ${JSON.stringify(got)} vs ${JSON.stringify(step)}`,
              );
              break;
            }
          }
        }
      }
      expect(mismatches).toEqual([]);
      expect(games).toBe(50);
      expect(steps).toBeGreaterThan(150);
    });
  },
);
