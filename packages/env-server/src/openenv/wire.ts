// OpenEnv's wire as our server speaks it (openenv-core 0.3.0: `GenericEnvClient` over `/ws`): the
// action, observation and state objects as zod schemas (their JSON Schemas are `GET /schema`), and
// the messages and replies of the WebSocket.
import type { StepResult } from '@pilotrl/core';
import { z } from 'zod';

/** A step's action: one env command. `metadata` is OpenEnv's base Action field, accepted and unused. */
export const openEnvActionSchema = z.strictObject({
  action: z.string().describe('One env command, e.g. "go to cabinet 1"'),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

export const openEnvObservationSchema = z.object({
  text: z.string().describe("The env's answer: the opening text after reset, then each command's result"),
  admissible_actions: z.array(z.string()).describe('Commands the env accepts now, in its own order'),
  task: z.string().nullable().describe('The goal in words'),
  task_id: z.string().nullable().describe('The task being played'),
  won: z.boolean().describe('The task is accomplished'),
  valid: z.boolean().describe('The env understood and executed the last command'),
  truncated: z.boolean().describe('The episode was cut by the step limit, not ended by the rules'),
});
export type OpenEnvObservation = z.infer<typeof openEnvObservationSchema>;

export const openEnvStateSchema = z.object({
  episode_id: z.string().nullable(),
  step_count: z.number().int().nonnegative(),
  env_id: z.string(),
  task_id: z.string().nullable(),
  done: z.boolean(),
  won: z.boolean(),
  total_reward: z.number(),
});
export type OpenEnvState = z.infer<typeof openEnvStateSchema>;

/**
 * What a reset may carry: `seed` plays the env's task of that seed; `task_id` a named task;
 * `split` with `index` the index-th task of a split (the task source's order). Unknown keys are
 * ignored, as OpenEnv passes only the ones a reset accepts.
 */
export const openEnvResetSchema = z.looseObject({
  seed: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).optional(),
  episode_id: z.string().max(255).optional(),
  task_id: z.string().min(1).optional(),
  split: z.string().min(1).optional(),
  index: z.number().int().nonnegative().optional(),
});
export type OpenEnvReset = z.infer<typeof openEnvResetSchema>;

/** OpenEnv's `WSErrorCode`s, plus the one for a session that is busy with an earlier message. */
export type OpenEnvErrorCode =
  | 'INVALID_JSON'
  | 'UNKNOWN_TYPE'
  | 'VALIDATION_ERROR'
  | 'EXECUTION_ERROR'
  | 'CAPACITY_REACHED'
  | 'SESSION_ERROR';

export const wsErrorReply = (
  message: string,
  code: OpenEnvErrorCode,
  extra: Record<string, unknown> = {},
) => ({
  type: 'error' as const,
  data: { message, code, ...extra },
});

export function observationOf(result: StepResult): OpenEnvObservation {
  const { info } = result;
  return {
    text: result.observation,
    admissible_actions: result.admissibleActions,
    task: info.task ?? null,
    task_id: info.taskId ?? null,
    won: info.won,
    valid: info.valid,
    truncated: result.truncated,
  };
}

/** `{observation, reward, done}`: the `data` of an observation message and the HTTP reply. */
export const stepReply = (result: StepResult, reward: number | null) => ({
  observation: observationOf(result),
  reward,
  done: result.terminated || result.truncated,
});

/** `GET /schema`: JSON Schemas of the action, observation and state objects. */
export function openEnvSchemas() {
  return {
    action: z.toJSONSchema(openEnvActionSchema),
    observation: z.toJSONSchema(openEnvObservationSchema),
    state: z.toJSONSchema(openEnvStateSchema),
  };
}
