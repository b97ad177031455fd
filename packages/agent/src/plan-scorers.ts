// How best-of-N ranks the plans a policy wrote: by a judge (PilotRL's rubric, mean of its three
// criteria, 1-5) or by the policy's value head (the estimated return after the plan's last token).
import { type Judge, mean, type Plan, type TaskRef } from '@pilotrl/core';
import type { ValueModel } from './value-model';

/** One plan to rank, with what it was written for. */
export interface PlanCandidate {
  task: TaskRef;
  goal: string;
  /** The latest observation when the plan was written. */
  observation: string;
  plan: Plan;
  /** Prompt and completion ids of the generation that finished the plan (empty without token ids). */
  sequence: readonly number[];
  /** Tokens the policy generated for this plan. */
  generatedTokens: number;
}

export interface PlanScorer {
  readonly kind: 'judge' | 'value';
  /** A score per candidate (higher is better) and the tokens read to score each. */
  score(candidates: readonly PlanCandidate[]): Promise<{ scores: number[]; scoredTokens: number[] }>;
}

/** The oracle's solution of a task, the reference a judge compares plans with; undefined when none. */
export type PlanReference = (task: TaskRef) => Promise<{ plan: Plan; actions: string[] } | undefined>;

/** Plans ranked by `judge`, against `reference` where given. A judge reads each plan's tokens. */
export function judgePlanScorer(judge: Judge, options: { reference?: PlanReference } = {}): PlanScorer {
  return {
    kind: 'judge',
    async score(candidates) {
      const inputs = await Promise.all(
        candidates.map(async ({ task, goal, observation, plan }) => {
          const reference = await options.reference?.(task);
          return { task: goal, plan, observation, ...(reference === undefined ? {} : { reference }) };
        }),
      );
      const verdicts = await judge.judge(inputs);
      return {
        scores: verdicts.map((v) =>
          mean([v.correctness.score, v.followability.score, v.standardization.score]),
        ),
        scoredTokens: candidates.map((candidate) => candidate.generatedTokens),
      };
    },
  };
}

/** Plans ranked by the value head after each plan; it reads every sequence whole. */
export function valuePlanScorer(model: ValueModel): PlanScorer {
  return {
    kind: 'value',
    async score(candidates) {
      return {
        scores: await model.values(candidates.map((candidate) => candidate.sequence)),
        scoredTokens: candidates.map((candidate) => candidate.sequence.length),
      };
    },
  };
}
