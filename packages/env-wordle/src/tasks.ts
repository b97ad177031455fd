// Wordle's task source: seeded splits over the vocabulary, and the oracle (the minimax solver
// playing the game as the env plays it, so it reads the same feedback an agent would).
import {
  createRng,
  InvalidArgumentError,
  NotFoundError,
  type OracleSolution,
  parseOrThrow,
  type TaskRef,
  type TaskSource,
  taskRange,
} from '@pilotrl/core';
import { z } from 'zod';
import { MAX_ATTEMPTS, spaced, WORD_LENGTH, WordleGame } from './game';
import { feedbackCodeOfText, nextGuess } from './solver';
import { type Vocabulary, vocabularySchema, vocabularyWords } from './vocabulary';

export const WORDLE_ENV_ID = 'wordle';

export const wordleSplits = ['train', 'valid_seen', 'valid_unseen'] as const;
export type WordleSplit = (typeof wordleSplits)[number];

/** Tasks in each validation split; train is unbounded. */
export const WORDLE_VALID_SIZE = 200;

/** Seeds of the splits do not overlap: train-N has seed N (AgentGym's seed N). */
const seedOffset: Record<WordleSplit, number> = {
  train: 0,
  valid_seen: 1_000_000_000,
  valid_unseen: 2_000_000_000,
};

export const WORDLE_TASK = `Guess the hidden ${WORD_LENGTH} letter word in at most ${MAX_ATTEMPTS} attempts.`;

export const wordleTaskConfigSchema = z.strictObject({
  /** LMRL-Gym word list: the accepted guesses and the words the hidden word is drawn from. */
  vocabulary: vocabularySchema.default('tweet_words'),
  /** `redraw`: LMRL-Gym's hidden word, drawn anew at each guess from the seed; `fixed`: the task's target. */
  secret: z.enum(['redraw', 'fixed']).default('redraw'),
});
export type WordleTaskConfig = z.input<typeof wordleTaskConfigSchema>;

export interface WordleTask {
  readonly split: WordleSplit;
  readonly index: number;
  /** Seed of the `random.Random` the hidden words are drawn with (`secret: 'redraw'`). */
  readonly seed: number;
  /** The hidden word under `secret: 'fixed'`: from the seen words, or the held-out ones for valid_unseen. */
  readonly target: string;
}

const partitions = new Map<Vocabulary, { seen: string[]; unseen: string[] }>();

/** One word in five, chosen by a fixed shuffle, is held out of train and valid_seen as a target. */
export function targetPartition(vocabulary: Vocabulary): { seen: string[]; unseen: string[] } {
  let partition = partitions.get(vocabulary);
  if (partition === undefined) {
    const { words } = vocabularyWords(vocabulary);
    const heldOut = new Set(
      createRng(`wordle/${vocabulary}/held-out`)
        .shuffle(words)
        .filter((_, position) => position % 5 === 4),
    );
    partition = {
      seen: words.filter((word) => !heldOut.has(word)),
      unseen: words.filter((word) => heldOut.has(word)),
    };
    partitions.set(vocabulary, partition);
  }
  return partition;
}

const TASK_ID = /^(train|valid_seen|valid_unseen)-(0|[1-9]\d{0,15})$/;

/** The task of a task id `<split>-<index>`, or an error that says what ids exist. */
export function wordleTask(vocabulary: Vocabulary, taskId: string): WordleTask {
  const match = TASK_ID.exec(taskId);
  const split = match?.[1] as WordleSplit | undefined;
  const index = Number(match?.[2]);
  const size = split === undefined ? 0 : splitSize(split);
  if (split === undefined || !Number.isSafeInteger(index) || index >= size) {
    throw new NotFoundError(
      `wordle: no task "${taskId}"; task ids are "<split>-<index>" with split train (unbounded), ` +
        `valid_seen or valid_unseen (${WORDLE_VALID_SIZE} tasks each), e.g. "train-17" or "valid_unseen-3"`,
    );
  }
  const { seen, unseen } = targetPartition(vocabulary);
  const pool = split === 'valid_unseen' ? unseen : seen;
  const target = createRng(`wordle/${vocabulary}/${taskId}`).pick(pool);
  return { split, index, seed: seedOffset[split] + index, target };
}

function splitSize(split: string): number {
  if (split === 'train') return Number.MAX_SAFE_INTEGER - seedOffset.valid_unseen;
  if (split === 'valid_seen' || split === 'valid_unseen') return WORDLE_VALID_SIZE;
  throw new NotFoundError(`wordle: unknown split "${split}"; choose one of ${wordleSplits.join(', ')}`);
}

/** The guesses (spaced, as the prompt asks) the solver makes in `game`, which it plays to the end. */
export function solveGame(game: WordleGame, vocabulary: Vocabulary): string[] {
  const history: [string, number][] = [];
  const actions: string[] = [];
  while (!game.over) {
    const guess = nextGuess(vocabulary, history, game.candidates);
    const action = spaced(guess);
    const outcome = game.guess(action);
    actions.push(action);
    history.push([guess, feedbackCodeOfText(outcome.observation)]);
  }
  return actions;
}

/** A task source over one vocabulary; give the env the same `vocabulary` and `secret`. */
export function createWordleTasks(
  config: WordleTaskConfig = {},
): TaskSource & { oracle(task: TaskRef): Promise<OracleSolution> } {
  const { vocabulary, secret } = parseOrThrow(wordleTaskConfigSchema, config, 'wordle task config');
  return {
    envId: WORDLE_ENV_ID,
    splits: () => wordleSplits,
    count(split) {
      const size = splitSize(split);
      return split === 'train' ? 'unbounded' : size;
    },
    async tasks(split, range = {}) {
      const { start, end } = taskRange(WORDLE_ENV_ID, range, this.count(split));
      const refs: TaskRef[] = [];
      for (let index = start; index < end; index++) {
        const taskId = `${split}-${index}`;
        const task = wordleTask(vocabulary, taskId);
        refs.push({ taskId, split, seed: task.seed, description: WORDLE_TASK });
      }
      return refs;
    },
    async oracle(task) {
      const { seed, target } = wordleTask(vocabulary, task.taskId);
      const game = new WordleGame({ vocabulary, secret, seed, target });
      const actions = solveGame(game, vocabulary);
      if (!game.solved) {
        throw new InvalidArgumentError(
          `wordle: the solver did not solve task "${task.taskId}" in ${MAX_ATTEMPTS} attempts`,
        );
      }
      const plan = actions.map((action, i) =>
        i === actions.length - 1
          ? `Guess "${action}", the hidden word.`
          : `Guess "${action}" to rule out as many words as possible.`,
      );
      return { actions, plan };
    },
  };
}

/** The default task source: AgentGym's vocabulary (`tweet_words`), hidden word redrawn as LMRL-Gym does. */
export const wordleTasks = createWordleTasks();
