// The oracle (a minimax solver that reads only the feedback) wins every hidden word of every
// vocabulary within the 6 attempts, so it wins every game the env can deal, redrawn or fixed.
import { describe, expect, it } from 'vitest';
import {
  createWordleEnv,
  createWordleTasks,
  MAX_ATTEMPTS,
  solveAgainst,
  vocabularyWords,
  wordleSplits,
} from './index';

describe('wordle oracle', () => {
  it.each(['tweet_words', 'wordle_official_400', 'wordle_official'] as const)(
    'solves every hidden word of %s within 6 guesses',
    (vocabulary) => {
      const { words } = vocabularyWords(vocabulary);
      const lengths = words.map((target) => {
        const guesses = solveAgainst(vocabulary, target);
        expect(guesses.at(-1)).toBe(target);
        return guesses.length;
      });
      expect(Math.max(...lengths)).toBeLessThanOrEqual(MAX_ATTEMPTS);
    },
    30_000,
  );

  it.each(['redraw', 'fixed'] as const)(
    'wins the first 25 tasks of every split (secret: %s)',
    async (secret) => {
      for (const vocabulary of ['tweet_words', 'wordle_official_400'] as const) {
        const tasks = createWordleTasks({ vocabulary, secret });
        const env = createWordleEnv({ vocabulary, secret });
        for (const split of wordleSplits) {
          for (const task of await tasks.tasks(split, { limit: 25 })) {
            let result = await env.reset(task);
            for (const action of (await tasks.oracle(task)).actions) result = await env.step(action);
            expect(result.info.won, `${vocabulary} ${task.taskId}`).toBe(true);
          }
        }
      }
    },
  );
});
