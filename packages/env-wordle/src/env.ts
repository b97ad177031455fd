// The Wordle TextEnv: LMRL-Gym's game with AgentGym's observation text (`b y g g b\n`,
// `invalid word`), reward 1 for a solved word and 0 otherwise, and a step limit reported as truncated.
import {
  type CopyableEnv,
  EnvError,
  parseOrThrow,
  type ResetOptions,
  resetOptionsSchema,
  type StepResult,
  stepEpisode,
} from '@pilotrl/core';
import { z } from 'zod';
import { WORDLE_FIRST_OBSERVATION_TEMPLATE } from './data/client-prompts';
import { spaced, WordleGame } from './game';
import { WORDLE_ENV_ID, WORDLE_TASK, wordleTask, wordleTaskConfigSchema } from './tasks';
import { type Vocabulary, vocabularyWords } from './vocabulary';

export const wordleConfigSchema = wordleTaskConfigSchema.extend({
  /** Steps (valid or not) after which an unfinished episode is truncated; AgentGym allows 8 rounds. */
  maxSteps: z.number().int().positive().default(8),
  /**
   * First observation: `client`, what AgentGym's client shows the model (the rules and the whole
   * vocabulary); `server`, what `/wordle/reset` answers (`Let's start Wordle!`).
   */
  opening: z.enum(['client', 'server']).default('client'),
});
export type WordleConfig = z.input<typeof wordleConfigSchema>;

/** What AgentGym's client shows as the first observation for `vocabulary`. */
export function wordleFirstObservation(vocabulary: Vocabulary): string {
  return WORDLE_FIRST_OBSERVATION_TEMPLATE.replace('{{vocab}}', vocabularyWords(vocabulary).words.join('\n'));
}

/** What `/wordle/reset` answers; AgentGym's client does not show it. */
export const WORDLE_SERVER_OPENING = "Let's start Wordle!";

const admissibleByVocabulary = new Map<Vocabulary, readonly string[]>();

/** Every word of the vocabulary, spaced as the prompt asks (`s h i r e`): the guesses the game accepts. */
function admissibleGuesses(vocabulary: Vocabulary): readonly string[] {
  let guesses = admissibleByVocabulary.get(vocabulary);
  if (guesses === undefined) {
    guesses = Object.freeze(vocabularyWords(vocabulary).words.map(spaced));
    admissibleByVocabulary.set(vocabulary, guesses);
  }
  return guesses;
}

interface Episode {
  readonly game: WordleGame;
  readonly taskId: string;
  steps: number;
  last: StepResult;
}

/**
 * Creates a Wordle env. `reset({ seed })` plays task `train-<seed>`, which under `secret: 'redraw'`
 * is AgentGym's game `seed`; `reset({ seed, taskId })` plays that task. `copy()` gives an
 * independent env in the same state (see `StateCopies`).
 */
export function createWordleEnv(config?: WordleConfig): CopyableEnv {
  return wordleEnv(parseOrThrow(wordleConfigSchema, config ?? {}, 'wordle config'), undefined);
}

/** The Wordle env under a checked config, playing `started` (a copy's episode) or nothing until `reset`. */
function wordleEnv(config: z.output<typeof wordleConfigSchema>, started: Episode | undefined): CopyableEnv {
  const { vocabulary, secret, maxSteps, opening } = config;
  let episode = started;
  const newGame = (taskId: string) => {
    const task = wordleTask(vocabulary, taskId);
    return new WordleGame({ vocabulary, secret, seed: task.seed, target: task.target });
  };

  const result = (
    observation: string,
    valid: boolean,
    game: WordleGame,
    taskId: string,
    steps: number,
  ): StepResult => {
    const truncated = !game.over && steps >= maxSteps;
    return {
      observation,
      admissibleActions: game.over || truncated ? [] : [...admissibleGuesses(vocabulary)],
      reward: game.solved ? 1 : 0,
      terminated: game.over,
      truncated,
      info: { won: game.solved, valid, task: WORDLE_TASK, taskId, attempts: game.guesses.length },
    };
  };

  return {
    envId: WORDLE_ENV_ID,
    async reset(options: ResetOptions) {
      const { seed, taskId = `train-${seed}` } = parseOrThrow(
        resetOptionsSchema,
        options,
        'wordle reset options',
      );
      const game = newGame(taskId);
      const observation = opening === 'client' ? wordleFirstObservation(vocabulary) : WORDLE_SERVER_OPENING;
      episode = { game, taskId, steps: 0, last: result(observation, true, game, taskId, 0) };
      return episode.last;
    },
    async step(action: string) {
      return stepEpisode(WORDLE_ENV_ID, episode, action, ({ game, taskId, steps }, command) => {
        const outcome = game.guess(command);
        return result(outcome.observation, outcome.valid, game, taskId, steps);
      });
    },
    async copy() {
      if (episode === undefined) {
        throw new EnvError(`${WORDLE_ENV_ID}: copy() was called before reset(); call reset({ seed }) first.`);
      }
      // A game is its guesses: replayed on a new game, they draw the same hidden words.
      const game = newGame(episode.taskId);
      for (const guess of episode.game.guesses) game.guess(guess);
      return wordleEnv(config, { ...episode, game });
    },
    async close() {
      episode = undefined;
    },
  };
}
