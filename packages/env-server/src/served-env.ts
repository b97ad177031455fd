// What the server is given for each env it serves: a factory for fresh envs and the task source
// that names its tasks. Nothing here knows a registry, so any app (or a user) builds these.
import type { StepResult, TaskSource, TextEnv } from '@pilotrl/core';

export interface ServedEnv {
  /** The id clients name the env by, e.g. `alfworld`; it is also the OpenEnv path segment. */
  readonly envId: string;
  /**
   * A fresh env. `options` are what a protocol asks of the env on top of its defaults, e.g. an
   * AgentGym dialect asks for the server's own first observation (`opening: 'server'`); an env
   * validates them as it validates any config.
   */
  createEnv(options?: Record<string, unknown>): TextEnv;
  readonly tasks: TaskSource;
  /** One line for `/metadata`; the env id when absent. */
  readonly description?: string;
}

/** What the reward hook is told about one step. */
export interface StepRewardInput {
  readonly envId: string;
  readonly result: StepResult;
  /** Steps taken in the episode, this one included. */
  readonly stepCount: number;
}

/**
 * The reward OpenEnv reports for a step. The default is the env's own reward (the task outcome);
 * a hook can shape it from the step result (e.g. a penalty for invalid actions). AgentGym dialects
 * keep the original servers' reward semantics and do not use it.
 */
export type StepReward = (input: StepRewardInput) => number;

export const envReward: StepReward = ({ result }) => result.reward;
