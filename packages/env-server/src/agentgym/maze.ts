// LMRL-Gym's Maze as AgentGym serves it (`agentenv-lmrlgym`, routes under `/maze`): `/reset {id,
// game}` starts from AgentGym's start cell `game` (0-25; 25, on the goal, is refused as there);
// `/reset` answers only `{observation}`, the cell's description; `/detail` sums the rewards.
// A game it cannot play gets the original's payload word for word: past its 26 start cells
// `{"error": "The game 26 is not valid."}`; game 25 (the goal) `{"error": ""}`, the empty message of
// LMRL-Gym's failed `assert`; a negative game indexes the list from its end, as Python does
// (-1 is game 25, -26 game 0, -27 `list index out of range`).
import { z } from 'zod';
import type { AgentGymDialect } from './dialect';
import { AGENTGYM_STEP_LIMIT } from './limits';
import { AgentGymError } from './runtime';

/** AgentGym's `start_positions`: the 25 open cells off the goal, then the goal as game 25. */
const GAMES = 26;
const GOAL_GAME = 25;

const MAZE_ACTIONS = ['move left', 'move right', 'move up', 'move down'];

export const mazeDialect: AgentGymDialect = {
  name: 'maze',
  envId: 'maze',
  health: 'This is environment LMRL-Gym.',
  envOptions: { maxSteps: AGENTGYM_STEP_LIMIT, opening: 'server', dialect: 'agentgym' },
  refusesAfterDone: true,
  /** `self.env[idx]` before any reset: `KeyError(idx)`, whose text is the id. */
  stepBeforeReset: (id) => String(id),
  getRoutes: ['available_actions', 'observation', 'detail'],
  idFreeRoutes: ['available_actions'],
  initialInfo: () => ({ done: false, reward: 0, deleted: false }),
  resetBody: z.object({ id: z.number().int(), game: z.number().int() }),
  async resetOptions(body) {
    const game = body.game as number;
    if (game >= GAMES) throw new AgentGymError(`The game ${game} is not valid.`);
    const index = game < 0 ? game + GAMES : game;
    if (index < 0) throw new AgentGymError('list index out of range');
    if (index === GOAL_GAME) throw new AgentGymError('');
    return { seed: index };
  },
  resetReply(session, _body, result) {
    session.observation = result.observation;
    session.info = {
      maze_name: 'double_t_maze',
      observation: result.observation,
      done: false,
      reward: 0,
      deleted: false,
    };
    return { observation: result.observation };
  },
  stepReply(session, result) {
    const payload = { observation: result.observation, reward: result.reward, done: result.terminated };
    session.observation = payload.observation;
    Object.assign(session.info, { ...payload, reward: (session.info.reward as number) + result.reward });
    return payload;
  },
  getReply(route) {
    return route === 'available_actions' ? MAZE_ACTIONS : undefined;
  },
};
