// LMRL-Gym's Wordle rules (llm_rl_scripts/wordle/env/game.py), as AgentGym's server plays them:
// per-letter knowledge of which positions hold the letter, the vocabulary filtered by that
// knowledge, feedback read back from it, and the hidden word drawn anew from the filtered
// vocabulary at every valid guess (`secret: 'redraw'`) or fixed at reset (`secret: 'fixed'`).
import { PythonRandom } from './python-random';
import { type Vocabulary, vocabularyWords } from './vocabulary';

export const WORD_LENGTH = 5;
export const MAX_ATTEMPTS = 6;

const NOT_HERE = 0;
const POSSIBLE = 1;
const HERE = 2;
const ALPHABET = 26;
const A = 'a'.charCodeAt(0);

/** Position knowledge per letter: `knowledge[letter * 5 + position]` is NOT_HERE, POSSIBLE or HERE. */
type Knowledge = Uint8Array;

const initialKnowledge = (): Knowledge => new Uint8Array(ALPHABET * WORD_LENGTH).fill(POSSIBLE);

/** `CharState.word_satisfies` for every letter: is `word` possible given the knowledge? */
function wordInState(knowledge: Knowledge, word: string): boolean {
  for (let letter = 0; letter < ALPHABET; letter++) {
    const base = letter * WORD_LENGTH;
    let allPossible = true;
    let allNotHere = true;
    for (let i = 0; i < WORD_LENGTH; i++) {
      const k = knowledge[base + i];
      if (k !== POSSIBLE) allPossible = false;
      if (k !== NOT_HERE) allNotHere = false;
    }
    if (allPossible) continue;
    const char = String.fromCharCode(A + letter);
    if (allNotHere) {
      if (word.includes(char)) return false;
      continue;
    }
    for (let i = 0; i < WORD_LENGTH; i++) {
      const k = knowledge[base + i];
      if (k === HERE && word[i] !== char) return false;
      if (k === NOT_HERE && word[i] === char) return false;
    }
    if (!word.includes(char)) return false;
  }
  return true;
}

/** `WordleState.transition_state`: what guessing `guess` teaches when the hidden word is `target`. */
function transition(knowledge: Knowledge, guess: string, target: string): Knowledge {
  const next = knowledge.slice();
  for (let i = 0; i < WORD_LENGTH; i++) {
    const char = guess[i]!;
    const base = (char.charCodeAt(0) - A) * WORD_LENGTH;
    if (char === target[i]) next[base + i] = HERE;
    else if (target.includes(char)) next[base + i] = NOT_HERE;
    else next.fill(NOT_HERE, base, base + WORD_LENGTH);
  }
  return next;
}

/** `transition_sequence()[-1]` as AgentGym prints it: `b y g g b`. */
function feedbackText(knowledge: Knowledge, guess: string): string {
  const letters: string[] = [];
  for (let i = 0; i < WORD_LENGTH; i++) {
    const base = (guess.charCodeAt(i) - A) * WORD_LENGTH;
    const slice = knowledge.subarray(base, base + WORD_LENGTH);
    if (slice[i] === HERE) letters.push('g');
    else if (slice.every((k) => k === NOT_HERE)) letters.push('b');
    else if (slice[i] === NOT_HERE) letters.push('y');
  }
  return letters.join(' ');
}

// Python's str.strip() whitespace (str.isspace), which differs from String.prototype.trim.
const PYTHON_WHITESPACE = new Set(
  '\t\n\v\f\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000',
);

/** The word the server reads from an action: stripped, then every space removed (`deformat_history`). */
export function guessOf(action: string): string {
  let start = 0;
  let end = action.length;
  while (start < end && PYTHON_WHITESPACE.has(action[start]!)) start++;
  while (end > start && PYTHON_WHITESPACE.has(action[end - 1]!)) end--;
  return action.slice(start, end).replaceAll(' ', '');
}

/** A word written as the prompt asks for guesses: `s h i r e`. */
export const spaced = (word: string) => word.split('').join(' ');

export interface GuessOutcome {
  /** What AgentGym's `/wordle/step` answers: `b y g g b\n`, or `invalid word`. */
  observation: string;
  /** The guess was a word of the vocabulary (an invalid word still uses an attempt). */
  valid: boolean;
  /** The hidden word is known and was guessed. */
  solved: boolean;
  /** The attempts are used up or the word is solved. */
  over: boolean;
}

export interface WordleGameOptions {
  readonly vocabulary: Vocabulary;
  readonly secret: 'redraw' | 'fixed';
  /** The `random.Random` seed the hidden words are drawn with (`secret: 'redraw'`). */
  readonly seed: number;
  /** The hidden word (`secret: 'fixed'`). */
  readonly target: string;
}

/** One game of Wordle. */
export class WordleGame {
  private knowledge = initialKnowledge();
  private filtered: readonly string[];
  private readonly rng: PythonRandom;
  private readonly words: readonly string[];
  private readonly known: ReadonlySet<string>;
  readonly guesses: string[] = [];

  constructor(private readonly options: WordleGameOptions) {
    const { words, set } = vocabularyWords(options.vocabulary);
    this.words = words;
    this.known = set;
    this.filtered = words;
    this.rng = new PythonRandom(options.seed);
  }

  /** Words still consistent with every feedback so far, in vocabulary order. */
  get candidates(): readonly string[] {
    return this.filtered;
  }

  get solved(): boolean {
    return this.filtered.length === 1 && this.guesses.includes(this.filtered[0]!);
  }

  get over(): boolean {
    return this.guesses.length >= MAX_ATTEMPTS || this.solved;
  }

  /** Plays `action` as AgentGym's server does; call only while the game is not over. */
  guess(action: string): GuessOutcome {
    const word = guessOf(action);
    this.guesses.push(word);
    if (word.length !== WORD_LENGTH || !/^[a-z]+$/.test(word) || !this.known.has(word)) {
      return { observation: 'invalid word', valid: false, solved: false, over: this.over };
    }
    const hidden = this.options.secret === 'redraw' ? this.rng.choice(this.filtered) : this.options.target;
    const knowledge = transition(this.knowledge, word, hidden);
    this.knowledge = knowledge;
    this.filtered = this.words.filter((candidate) => wordInState(knowledge, candidate));
    return {
      observation: `${feedbackText(knowledge, word)}\n`,
      valid: true,
      solved: this.solved,
      over: this.over,
    };
  }
}
