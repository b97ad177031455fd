// The word lists a game can use, by the name of their LMRL-Gym file.
import { z } from 'zod';
import { TWEET_WORDS, WORDLE_OFFICIAL, WORDLE_OFFICIAL_400 } from './data/vocabularies';

export const vocabularySchema = z.enum(['tweet_words', 'wordle_official_400', 'wordle_official']);
export type Vocabulary = z.infer<typeof vocabularySchema>;

const sources: Record<Vocabulary, string> = {
  tweet_words: TWEET_WORDS,
  wordle_official_400: WORDLE_OFFICIAL_400,
  wordle_official: WORDLE_OFFICIAL,
};

const loaded = new Map<Vocabulary, { words: readonly string[]; set: ReadonlySet<string> }>();

/** The words of a vocabulary in file order (the order LMRL-Gym's random draws index into). */
export function vocabularyWords(vocabulary: Vocabulary): {
  words: readonly string[];
  set: ReadonlySet<string>;
} {
  let entry = loaded.get(vocabulary);
  if (entry === undefined) {
    const words = Object.freeze(sources[vocabulary].split(' '));
    entry = { words, set: new Set(words) };
    loaded.set(vocabulary, entry);
  }
  return entry;
}
