// LMRL-Gym's Maze as AgentGym serves it (`agentenv-lmrlgym`, routes under `/maze`): `/reset {id,
// game}` starts from AgentGym's start cell `game` (0-25; 25, on the goal, is refused as there);
// `/reset` answers only `{observation}`, the cell's description; `/detail` sums the rewards.
import { z } from 'zod';
import type { AgentGymDialect } from './dialect';
import { AGENTGYM_STEP_LIMIT } from './limits';

const MAZE_ACTIONS = ['move left', 'move right', 'move up', 'move down'];

export const mazeDialect: AgentGymDialect = {
  name: 'maze',
  envId: 'maze',
  health: 'This is environment LMRL-Gym.',
  envOptions: { maxSteps: AGENTGYM_STEP_LIMIT, opening: 'server', dialect: 'agentgym' },
  refusesAfterDone: true,
  getRoutes: ['available_actions', 'observation', 'detail'],
  idFreeRoutes: ['available_actions'],
  initialInfo: () => ({ done: false, reward: 0, deleted: false }),
  resetBody: z.object({ id: z.number().int(), game: z.number().int().nonnegative() }),
  async resetOptions(body) {
    return { seed: body.game as number };
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
