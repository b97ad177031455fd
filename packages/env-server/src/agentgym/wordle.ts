// LMRL-Gym's Wordle as AgentGym serves it (`agentenv-lmrlgym`, routes under `/wordle`): `/reset
// {id, seed}` plays the env's game `seed` (AgentGym's hidden-word draws for that seed); `/reset`
// answers `Let's start Wordle!`; reward 1 for the solving guess, else 0 (`0.0` after an invalid
// word, as Python's float); `/filtered_vocab` lists the vocabulary, which the client shows the model.
import { z } from 'zod';
import { PyFloat } from '../http-io';
import type { ServedEnv } from '../served-env';
import type { AgentGymDialect } from './dialect';
import { AGENTGYM_STEP_LIMIT } from './limits';

const INVALID_WORD = 'invalid word';
const envOptions = { maxSteps: AGENTGYM_STEP_LIMIT, opening: 'server' };

/** The words a fresh game accepts (its admissible guesses, unspaced), once per served env. */
const vocabularies = new WeakMap<ServedEnv, Promise<string[]>>();
function vocabularyOf(served: ServedEnv): Promise<string[]> {
  let words = vocabularies.get(served);
  if (words === undefined) {
    const env = served.createEnv(envOptions);
    words = env
      .reset({ seed: 0 })
      .then((result) => result.admissibleActions.map((guess) => guess.replaceAll(' ', '')))
      .finally(() => void env.close?.());
    vocabularies.set(served, words);
  }
  return words;
}

export const wordleDialect: AgentGymDialect = {
  name: 'wordle',
  envId: 'wordle',
  health: 'This is environment LMRL-Gym.',
  envOptions,
  refusesAfterDone: true,
  getRoutes: ['filtered_vocab', 'observation', 'detail'],
  initialInfo: () => ({ done: false, reward: 0, deleted: false }),
  resetBody: z.object({ id: z.number().int(), seed: z.number().int().nonnegative() }),
  async resetOptions(body) {
    return { seed: body.seed as number };
  },
  resetReply(session, body, result) {
    session.observation = result.observation;
    Object.assign(session.info, {
      seed: body.seed,
      observation: result.observation,
      done: false,
      reward: 0,
      deleted: false,
    });
    return { id: body.id, observation: result.observation };
  },
  stepReply(session, result) {
    const reward = result.info.won ? 1 : 0;
    const payload = {
      observation: result.observation,
      reward: result.observation === INVALID_WORD ? new PyFloat(reward) : reward,
      done: result.terminated,
    };
    session.observation = payload.observation;
    Object.assign(session.info, { ...payload, reward: (session.info.reward as number) + reward });
    return payload;
  },
  getReply(route, _session, served) {
    return route === 'filtered_vocab' ? vocabularyOf(served) : undefined;
  },
};
