// AgentGym's BabyAI server (`agentenv-babyai`): `/reset {id, data_idx}` plays AgentGym item
// `babyai_<data_idx>` (level `data_idx mod 40 + 1`, seed `data_idx div 40`) from the start states
// the env package ships; the observation carries `\nAvailable actions: [...]`, and besides the
// step's `reward` the reply has `score`, the sum of rewards so far, which is what the client reports.
import type { StepResult } from '@pilotrl/core';
import { z } from 'zod';
import type { AgentGymDialect, DialectSession } from './dialect';
import { AGENTGYM_STEP_LIMIT } from './limits';
import { AgentGymError } from './runtime';

const scoreOf = (result: StepResult) => (typeof result.info.score === 'number' ? result.info.score : 0);

function update(session: DialectSession, result: StepResult) {
  const payload = {
    observation: result.observation,
    reward: result.reward,
    score: scoreOf(result),
    done: result.terminated,
  };
  session.observation = payload.observation;
  Object.assign(session.info, payload);
  return payload;
}

export const babyaiDialect: AgentGymDialect = {
  name: 'babyai',
  envId: 'babyai',
  health: 'This is environment BabyAI.',
  envOptions: { maxSteps: AGENTGYM_STEP_LIMIT, dialect: 'agentgym' },
  refusesAfterDone: true,
  /** `self.env[idx]` before any reset: `KeyError(idx)`, whose text is the id. */
  stepBeforeReset: (id) => String(id),
  getRoutes: ['observation'],
  initialInfo: () => ({ deleted: false, done: false }),
  resetBody: z.object({ id: z.number().int(), data_idx: z.number().int() }),
  async resetOptions(body) {
    const dataIdx = body.data_idx as number;
    // Level `data_idx % 40 + 1` with seed `data_idx // 40`: below 0 the seed is negative, which
    // Gymnasium's seeding refuses in these words.
    if (dataIdx < 0) {
      throw new AgentGymError(
        `Seed must be greater or equal to zero, actual value: ${Math.floor(dataIdx / 40)}`,
      );
    }
    return { seed: dataIdx, taskId: `babyai_${dataIdx}` };
  },
  resetReply(session, _body, result) {
    const { observation, reward, score, done } = update(session, result);
    return { observation, reward, score, deleted: false, done };
  },
  stepReply: (session, result) => update(session, result),
  /** AgentGym 2025's `/observation`: the reset reply's shape, for the current state. */
  getReply(_route, session) {
    if (session === undefined) return undefined;
    const { observation, reward, score, done } = session.info;
    return { observation, reward, score, deleted: false, done };
  },
};
