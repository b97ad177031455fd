// AgentGym's TextCraft server (`agentenv-textcraft`): `/create` resets the new env at once with
// `data_idx = id` and answers with its first observation; `/reset {id, data_idx}` plays our env's
// `data_idx` (goal `data_idx mod goals`, as the env's `reset({seed: data_idx})`). The original does
// not refuse steps after the goal is crafted; here they get the env's "episode is over" answer.
import { z } from 'zod';
import type { AgentGymDialect } from './dialect';
import { AGENTGYM_STEP_LIMIT } from './limits';

export const textcraftDialect: AgentGymDialect = {
  name: 'textcraft',
  envId: 'textcraft',
  health: 'This is environment TextCraft.',
  envOptions: { maxSteps: AGENTGYM_STEP_LIMIT },
  refusesAfterDone: false,
  getRoutes: ['observation', 'detail'],
  initialInfo: () => ({ observation: '', done: false, reward: 0, deleted: false }),
  resetBody: z.object({ id: z.number().int(), data_idx: z.number().int().nonnegative().default(0) }),
  resetsAtCreate: (id, index) => ({ id, data_idx: index }),
  async resetOptions(body) {
    return { seed: body.data_idx as number };
  },
  createReply(session) {
    return { id: session.id, observation: session.observation, done: false, reward: 0 };
  },
  resetReply(session, body, result) {
    session.observation = result.observation;
    Object.assign(session.info, { observation: result.observation, done: false, reward: 0, deleted: false });
    return { id: body.id, observation: result.observation, done: false, reward: 0 };
  },
  stepReply(session, result) {
    const payload = { observation: result.observation, reward: result.reward, done: result.terminated };
    session.observation = payload.observation;
    Object.assign(session.info, payload);
    return payload;
  },
};
