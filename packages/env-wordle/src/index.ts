// @pilotrl/env-wordle: LMRL-Gym's Wordle as AgentGym serves it, natively in TypeScript.

export {
  AGENTGYM_ACKNOWLEDGEMENT,
  WORDLE_FIRST_OBSERVATION_TEMPLATE,
  WORDLE_SYSTEM_PROMPT,
} from './data/client-prompts';
export {
  createWordleEnv,
  WORDLE_SERVER_OPENING,
  type WordleConfig,
  wordleConfigSchema,
  wordleFirstObservation,
} from './env';
export { type GuessOutcome, guessOf, MAX_ATTEMPTS, spaced, WORD_LENGTH, WordleGame } from './game';
export { plugin } from './plugin';
export { PythonRandom } from './python-random';
export { feedbackCode, solveAgainst } from './solver';
export {
  createWordleTasks,
  solveGame,
  targetPartition,
  WORDLE_ENV_ID,
  WORDLE_TASK,
  WORDLE_VALID_SIZE,
  type WordleSplit,
  type WordleTask,
  type WordleTaskConfig,
  wordleSplits,
  wordleTask,
  wordleTaskConfigSchema,
  wordleTasks,
} from './tasks';
export { type Vocabulary, vocabularySchema, vocabularyWords } from './vocabulary';
