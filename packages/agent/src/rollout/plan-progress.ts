// How far an episode is through the plan in force, chosen once per agent: counted from the actions
// where the env has a plan-step vocabulary (each step's `executes`), else read from the thoughts by
// the agent's step tracker.
import type { PlanStepVocabulary } from '@pilotrl/core';
import type { StepTracker } from '../agent';
import { type EpisodeState, thoughtsOf } from './episode-state';

export interface PlanProgress {
  /** Steps of the plan in force carried out so far. */
  stepsDone(episode: EpisodeState): number;
  /** The executed-step count once `action` was answered with `observation`. */
  executedAfter(episode: EpisodeState, action: string, observation: string): number;
}

/** Steps counted from the actions: the next step is done when the vocabulary says the action carried it out. */
export function executedStepProgress(vocabulary: PlanStepVocabulary): PlanProgress {
  return {
    stepsDone: (episode) => (episode.plan.current === null ? 0 : episode.plan.executedSteps),
    executedAfter(episode, action, observation) {
      const { current, executedSteps } = episode.plan;
      const next = current?.[executedSteps];
      return next !== undefined && vocabulary.executes(next, action, observation)
        ? executedSteps + 1
        : executedSteps;
    },
  };
}

/** Steps read from the thoughts so far by `tracker`; nothing is counted from the actions. */
export function trackedStepProgress(tracker: StepTracker): PlanProgress {
  return {
    stepsDone: (episode) => {
      const plan = episode.plan.current;
      return plan === null ? 0 : tracker({ plan, thoughts: thoughtsOf(episode) });
    },
    executedAfter: (episode) => episode.plan.executedSteps,
  };
}
