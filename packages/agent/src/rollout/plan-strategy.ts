// How a plan is written, chosen once per agent: free text (plan-free-text.ts), through the env's
// plan-step trie (plan-step-trie.ts), given by a plan provider at the start (plan-provided.ts),
// any of them N times with the best kept (plan-best-of-n.ts), or not at all (ReAct). A strategy
// hands out writers; the scheduler batches their asks, answers them, then has the strategy choose
// among each episode's drafts, and adopts the chosen plan itself.
import type { GenerateResult, Generation, Plan, PlanRevision } from '@pilotrl/core';
import type { SearchCompute } from '../search-compute';
import type { EpisodeState } from './episode-state';
import type { PolicyAsk, Samples } from './policy-asks';

/** What adopting a draft does to the episode's plan. */
export type PlanOutcome =
  | {
      kind: 'adopt';
      plan: Plan;
      source: PlanRevision['source'];
      fixedSteps: number;
      /** A free-text revision rewrote steps already carried out (they are kept as they were). */
      editedFixedSteps: boolean;
    }
  | { kind: 'keep'; editedFixedSteps: boolean }
  | { kind: 'unreadable'; formatError: string };

/** One plan written (or given), with what writing it generated. */
export interface PlanDraft {
  /** The generations recorded for the turn if this draft is chosen. */
  generations: Generation[];
  /** The generation that finished the plan, if any. */
  last: GenerateResult | undefined;
  /** The plan as written, for a scorer to rank; null where there is none to rank. */
  plan: Plan | null;
  outcome: PlanOutcome;
  /** It was written from a plan-step vocabulary that offered no step at all. */
  emptyVocabulary: boolean;
}

/** Writes one plan of one episode (or N samples of it, from one prompt), asking until it is done. */
export interface PlanWriter {
  readonly episode: EpisodeState;
  /** The generation it needs next; undefined once its plan is written. */
  next(): PolicyAsk | undefined;
  /** The answers to `next()`'s ask, one per sample. */
  answer(results: readonly GenerateResult[]): void;
  /** The plans written: none where the policy was to write one and was never answered. */
  drafts(): PlanDraft[];
}

/** The drafts of one episode, and the one it adopts with what choosing it cost. */
export interface WrittenPlans {
  episode: EpisodeState;
  drafts: PlanDraft[];
}
export interface ChosenPlan {
  draft: PlanDraft;
  compute?: SearchCompute;
}

export interface PlanStrategy {
  /** The writers of the plans `episodes` need before acting at `turn`, episode by episode. */
  write(episodes: readonly EpisodeState[], turn: number): Promise<PlanWriter[]>;
  /** Per episode, the draft to adopt. */
  choose(written: readonly WrittenPlans[]): Promise<ChosenPlan[]>;
}

/** One plan per episode; best-of-N writes more. */
export const ONE_PLAN: Samples = { count: 1 };

/** Each episode's one draft. */
export const onlyDraft: PlanStrategy['choose'] = async (written) =>
  written.map(({ drafts }) => ({ draft: drafts[0]! }));

/** ReAct: no plans. */
export const noPlans: PlanStrategy = { write: async () => [], choose: onlyDraft };
