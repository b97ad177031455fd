// AgentGym's ALFWorld server (`agentenv-alfworld`): `/reset {id, game, world_type}` plays game
// `game` of AgentGym's 2,620 (its 2,420 train games, then its 200 test games); here game g < 2420
// is task g of our `train` split and game 2420 + k task k of `valid_seen`, in the task source's
// order. Observations are cut as the original cuts them: the welcome header off the first one,
// `You arrive at loc N. ` off a step's; `reward` is `float(won)`.
import type { StepResult } from '@pilotrl/core';
import { z } from 'zod';
import { PyFloat } from '../http-io';
import type { AgentGymDialect } from './dialect';
import { AGENTGYM_STEP_LIMIT } from './limits';
import { AgentGymError } from './runtime';

export const ALFWORLD_TRAIN_GAMES = 2420;
export const ALFWORLD_GAMES = 2620;
const WORLD_TYPES = ['Text', 'Embody', 'Hybrid'];

/** `"\n".join(ob.split("\n\n")[1:])`: the first observation without the welcome header. */
export const withoutHeader = (observation: string) => observation.split('\n\n').slice(1).join('\n');

/** `process_ob`: a step's observation without `You arrive at loc N. `. */
export function withoutArrival(observation: string): string {
  if (!observation.startsWith('You arrive at loc ')) return observation;
  const end = observation.indexOf('. ');
  return end === -1 ? observation.slice(1) : observation.slice(end + 2);
}

/**
 * AgentGym's `task_type`, the game file's `<task dir>/<trial dir>`: the last two parts of a game
 * directory's task id, and `<task type>/<task id>` for a generated task (`gen/<plan>/<trial>`).
 */
function taskTypeOf(result: StepResult): string {
  const taskId = result.info.taskId ?? '';
  if (taskId.startsWith('gen/')) return `${result.info.taskType ?? 'unknown'}/${taskId}`;
  return taskId.split('/').filter(Boolean).slice(-2).join('/');
}

export const alfworldDialect: AgentGymDialect = {
  name: 'alfworld',
  envId: 'alfworld',
  health: 'This is environment AlfWorld.',
  envOptions: { maxSteps: AGENTGYM_STEP_LIMIT },
  refusesAfterDone: true,
  /** `self.env[idx]` before any reset: `KeyError(idx)`, whose text is the id. */
  stepBeforeReset: (id) => String(id),
  getRoutes: ['available_actions', 'observation', 'detail'],
  initialInfo: () => ({ done: false, reward: 0, deleted: false }),
  resetBody: z.object({ id: z.number().int(), game: z.number().int(), world_type: z.string() }),
  /** Checked before the id, as the original's `reset` does. */
  refuseReset(body) {
    if (!WORLD_TYPES.includes(body.world_type as string)) {
      throw new AgentGymError('world_type must be one of "Text", "Embody" and "Hybrid"');
    }
  },
  async resetOptions(body, served) {
    // `self.games[game]`: Python's indexing, a negative game counted from the end.
    const given = body.game as number;
    const game = given < 0 ? given + ALFWORLD_GAMES : given;
    if (game < 0 || game >= ALFWORLD_GAMES) throw new AgentGymError('list index out of range');
    const [split, index] =
      game < ALFWORLD_TRAIN_GAMES ? ['train', game] : ['valid_seen', game - ALFWORLD_TRAIN_GAMES];
    const [task] = await served.tasks.tasks(split as string, { offset: index as number, limit: 1 });
    if (task === undefined) throw new AgentGymError('list index out of range');
    return { seed: task.seed, taskId: task.taskId };
  },
  resetReply(session, body, result) {
    const observation = withoutHeader(result.observation);
    const availableActions = result.admissibleActions;
    session.observation = observation;
    session.info = {
      world_type: body.world_type,
      game: body.game,
      observation,
      available_actions: availableActions,
      done: false,
      reward: 0,
      deleted: false,
    };
    return { id: body.id, observation, available_actions: availableActions, task_type: taskTypeOf(result) };
  },
  stepReply(session, result) {
    const payload = {
      observation: withoutArrival(result.observation),
      reward: new PyFloat(result.info.won ? 1 : 0),
      available_actions: result.admissibleActions,
      done: result.terminated,
    };
    session.observation = payload.observation;
    Object.assign(session.info, payload);
    return payload;
  },
  getReply(route, session) {
    return route === 'available_actions' ? session?.info.available_actions : undefined;
  },
};
