// Optional capabilities an env package may offer beyond the TextEnv contract, each used by the
// agent loop where given and replaced by a generic fallback where not:
// - an episode view: what a policy is shown of an episode as one prompt rebuilt every turn, the
//   alternative to a growing conversation for small models (a few dozen tokens instead of hundreds);
// - hindsight relabelling: the goal a lost episode did reach, so self-improvement can learn from it;
// - a plan-step vocabulary: the steps a plan may name, so a policy writes plans that always parse;
// - a demonstrator: oracle solutions played as an agent that sees only observations would play them.

import type { StepResult } from './env';
import type { Rng } from './rng';
import type { OracleSolution, Plan, TaskRef } from './task';

/** What the policy sees of one episode so far; it is told every command and the env's answer. */
export interface EpisodeView {
  /** The whole prompt for the next decision. */
  prompt(): string;
  /** Records a command that was played and the observation the env answered with. */
  observe(action: string, observation: string): void;
}

/** A view of a new episode, given its goal (possibly relabelled) and the opening observation. */
export type EpisodeViewFactory = (start: { goal: string; observation: string }) => EpisodeView;

/** The goal and the latest observation: the smallest view that works for any env. */
export const latestObservationView: EpisodeViewFactory = ({ goal, observation }) => {
  let latest = observation;
  return {
    prompt: () => `${goal}\n${latest}`,
    observe: (_action, next) => {
      latest = next;
    },
  };
};

/** Whether the commands so far, the last of them just answered by `step`, reach a goal. */
export type Reached = (step: StepResult, actions: readonly string[]) => boolean;

/** An env's hindsight relabelling: which goal a command sequence reached, and how to tell it. */
export interface HindsightRelabeller<Goal = unknown> {
  /** The first goal the commands reach and how many commands it took; undefined when none. */
  find(actions: readonly string[]): { goal: Goal; reachedAfter: number } | undefined;
  /** The test a replay towards `goal` stops at. */
  reaches(goal: Goal): Reached;
  /** The goal as the env would state it to the agent; `rng` picks among equivalent phrasings. */
  describe(goal: Goal, rng: Rng): string;
}

/**
 * An env's vocabulary of plan steps: a plan written in it always parses, and the agent loop can
 * tell from the actions taken which of its steps are carried out.
 */
export interface PlanStepVocabulary {
  /** The steps a plan may contain now, given the goal and the observations so far (the opening one first). */
  steps(input: { goal: string; observations: readonly string[] }): string[];
  /** Whether `action`, answered with `observation`, carries out `step`. */
  executes(step: string, action: string, observation: string): boolean;
  /**
   * The plan in this vocabulary that a won command sequence carries out (an oracle's, a shortcut):
   * what demonstrations and relabelled episodes write as their plan. Without it, plans can only come
   * from the policy.
   */
  planOf?(actions: readonly string[]): Plan;
  /**
   * Other plans in this vocabulary that reach the goal `plan` reaches, in the room the observations
   * show (e.g. the same steps at another receptacle of the same type): the candidates a policy
   * learning to follow plans picks among. May be empty.
   */
  alternatives?(plan: Plan, input: { goal: string; observations: readonly string[] }): Plan[];
}

/**
 * Demonstrations an agent can imitate from what it sees. An oracle plans on the whole state (it
 * walks straight to where an object lies); a demonstrator carries out the oracle's solution as an
 * agent that knows only its observations would, e.g. searching likely places first.
 */
export interface Demonstrator {
  /** The solution played that way, or undefined when the demonstrator cannot carry it out. */
  demonstrate(
    task: TaskRef,
    solution: OracleSolution,
    options?: DemonstrateOptions,
  ): Promise<OracleSolution | undefined>;
}

export interface DemonstrateOptions {
  /**
   * Carry out a plan drawn per task among the oracle's and the plan-step vocabulary's alternatives
   * to it (e.g. the same steps at another receptacle of the goal's type), not always the oracle's:
   * across demonstrations the plan, not the task alone, then tells where to go, so a policy
   * imitating them has to read the plan it is given.
   */
  alternativePlans?: boolean;
}
