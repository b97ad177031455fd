// One OpenEnv episode over a TextEnv, shared by the WebSocket and the HTTP routes: which task a
// reset plays, the reward a step reports, and the state `state` answers with.
import { randomUUID } from 'node:crypto';
import { NotFoundError, type ResetOptions, type StepResult, type TextEnv } from '@pilotrl/core';
import type { ServedEnv, StepReward } from '../served-env';
import { type OpenEnvReset, type OpenEnvState, stepReply } from './wire';

export interface OpenEnvEpisode {
  readonly episodeId: string;
  readonly taskId: string | null;
  stepCount: number;
  totalReward: number;
  last: StepResult;
}

/** The env's reset options for a reset message: a task id, a split's index-th task, or a seed. */
export async function resetOptionsFor(served: ServedEnv, data: OpenEnvReset): Promise<ResetOptions> {
  if (data.task_id !== undefined) return { seed: data.seed ?? 0, taskId: data.task_id };
  if (data.split !== undefined) {
    const index = data.index ?? 0;
    const [task] = await served.tasks.tasks(data.split, { offset: index, limit: 1 });
    if (task === undefined) {
      throw new NotFoundError(
        `${served.envId}: split "${data.split}" has no task ${index}; it has ${served.tasks.count(data.split)}`,
      );
    }
    return { seed: task.seed, taskId: task.taskId };
  }
  return { seed: data.seed ?? 0 };
}

export async function resetEpisode(
  served: ServedEnv,
  env: TextEnv,
  data: OpenEnvReset,
): Promise<{ episode: OpenEnvEpisode; reply: ReturnType<typeof stepReply> }> {
  const result = await env.reset(await resetOptionsFor(served, data));
  const episode: OpenEnvEpisode = {
    episodeId: data.episode_id ?? randomUUID(),
    taskId: result.info.taskId ?? null,
    stepCount: 0,
    totalReward: 0,
    last: result,
  };
  // OpenEnv's convention: no reward before the first action.
  return { episode, reply: stepReply(result, null) };
}

export async function stepEpisode(
  served: ServedEnv,
  env: TextEnv,
  episode: OpenEnvEpisode,
  action: string,
  reward: StepReward,
): Promise<ReturnType<typeof stepReply>> {
  const result = await env.step(action);
  episode.stepCount += 1;
  episode.last = result;
  const value = reward({ envId: served.envId, result, stepCount: episode.stepCount });
  episode.totalReward += value;
  return stepReply(result, value);
}

export function stateOf(envId: string, episode: OpenEnvEpisode | undefined): OpenEnvState {
  return {
    episode_id: episode?.episodeId ?? null,
    step_count: episode?.stepCount ?? 0,
    env_id: envId,
    task_id: episode?.taskId ?? null,
    done: episode === undefined ? false : episode.last.terminated || episode.last.truncated,
    won: episode?.last.info.won ?? false,
    total_reward: episode?.totalReward ?? 0,
  };
}
