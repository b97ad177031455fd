// A Wordle player that reads only the feedback: among all words of the vocabulary it guesses the
// one whose worst feedback leaves the fewest candidates (minimax), preferring a candidate, then
// more distinct feedbacks, then vocabulary order. Deterministic, so its decisions are cached by
// the guesses and feedbacks that led to them.
import { WORD_LENGTH } from './game';
import type { Vocabulary } from './vocabulary';
import { vocabularyWords } from './vocabulary';

/** LMRL-Gym's feedback as a base-3 number (0 b, 1 y, 2 g): no accounting for repeated letters. */
export function feedbackCode(guess: string, target: string): number {
  let code = 0;
  for (let i = WORD_LENGTH - 1; i >= 0; i--) {
    const char = guess[i]!;
    code = code * 3 + (char === target[i] ? 2 : target.includes(char) ? 1 : 0);
  }
  return code;
}

/** The code of a feedback text such as `b y g g b`. */
export function feedbackCodeOfText(text: string): number {
  const letters = text.trim().split(' ');
  let code = 0;
  for (let i = letters.length - 1; i >= 0; i--) code = code * 3 + 'byg'.indexOf(letters[i]!);
  return code;
}

const SOLVED = 3 ** WORD_LENGTH - 1;

interface Choice {
  guess: string;
  worst: number;
  isCandidate: boolean;
  buckets: number;
}

const better = (a: Choice, b: Choice) =>
  a.worst !== b.worst
    ? a.worst < b.worst
    : a.isCandidate !== b.isCandidate
      ? a.isCandidate
      : a.buckets > b.buckets;

/** The minimax guess for `candidates` (non-empty, in vocabulary order). */
function chooseGuess(words: readonly string[], candidates: readonly string[]): string {
  if (candidates.length <= 2) return candidates[0]!;
  const candidateSet = new Set(candidates);
  const counts = new Uint16Array(SOLVED + 1);
  let best: Choice | undefined;
  for (const guess of words) {
    counts.fill(0);
    let worst = 0;
    let buckets = 0;
    for (const target of candidates) {
      const code = feedbackCode(guess, target);
      const count = ++counts[code]!;
      if (count === 1) buckets++;
      if (count > worst) worst = count;
      if (best !== undefined && worst > best.worst) break;
    }
    const choice = { guess, worst, isCandidate: candidateSet.has(guess), buckets };
    if (best === undefined || better(choice, best)) best = choice;
  }
  return best!.guess;
}

const decisionCaches = new Map<Vocabulary, Map<string, string>>();

/**
 * The next guess after `history` (pairs of a guess and its feedback code), given the words still
 * consistent with it. Same history, same guess.
 */
export function nextGuess(
  vocabulary: Vocabulary,
  history: readonly (readonly [guess: string, feedback: number])[],
  candidates: readonly string[],
): string {
  let cache = decisionCaches.get(vocabulary);
  if (cache === undefined) {
    cache = new Map();
    decisionCaches.set(vocabulary, cache);
  }
  const key = history.map(([guess, code]) => `${guess}${code}`).join(',');
  let guess = cache.get(key);
  if (guess === undefined) {
    guess = chooseGuess(vocabularyWords(vocabulary).words, candidates);
    cache.set(key, guess);
  }
  return guess;
}

/** The guesses the solver makes against a fixed hidden word, the last one being that word. */
export function solveAgainst(vocabulary: Vocabulary, target: string, maxGuesses = 20): string[] {
  const { words } = vocabularyWords(vocabulary);
  let candidates = words;
  const history: [string, number][] = [];
  while (history.length < maxGuesses) {
    const guess = nextGuess(vocabulary, history, candidates);
    const code = feedbackCode(guess, target);
    history.push([guess, code]);
    if (code === SOLVED) break;
    candidates = candidates.filter((word) => feedbackCode(guess, word) === code);
  }
  return history.map(([guess]) => guess);
}
