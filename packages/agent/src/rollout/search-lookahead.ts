// Look-ahead as the rollout's search: each acting episode's sampled answers (or its one constrained
// choice, whose logprobs rank the others) are tried on copies of its env by `searchByLookahead`,
// all episodes at once, and the best branch is played.
import type { Episode, VectorEnv, VectorStateCopies } from '@pilotrl/core';
import type { Agent } from '../agent';
import { searchByLookahead } from '../lookahead-search';
import { mixSeed } from '../policy-call';
import type { LookaheadSearch } from '../test-time-search';
import type { TokenCounter } from '../token-budget';
import type { ActionStrategy } from './action-strategy';
import type { PlanProgress } from './plan-progress';
import type { RolloutHooks, RolloutOptions } from './rollout-options';
import type { SearchStrategy } from './search-strategy';

/** The rollout that plays the branches (the batched one, passed in by the rollout that searches). */
export type Playout = (
  agent: Agent,
  vectorEnv: VectorEnv,
  options: RolloutOptions,
  hooks?: RolloutHooks,
) => Promise<Episode[]>;

export function lookaheadSearch(input: {
  search: LookaheadSearch;
  agent: Agent;
  vectorEnv: VectorEnv & VectorStateCopies;
  envId: string;
  seed: number;
  action: ActionStrategy;
  progress: PlanProgress;
  count: TokenCounter;
  playout: Playout;
}): SearchStrategy {
  const { search, agent, vectorEnv, envId, seed, action, progress, count, playout } = input;
  return {
    // A constrained choice is answered once: its logprobs rank the other choices.
    samplesPerAct: agent.options.actionSpace === 'choice' ? 1 : search.width,
    async decide(proposals, turn) {
      const decisions = proposals.map(({ episode, results }) => ({
        slot: episode.slot,
        task: episode.group.task,
        goal: episode.goal,
        plan: episode.plan.current,
        stepsDone: progress.stepsDone(episode),
        current: episode.current,
        proposals: results.map((result) => ({
          result,
          command: action.command(episode.current.admissibleActions, result),
        })),
      }));
      const choices = await searchByLookahead({
        search,
        agent,
        vectorEnv,
        envId,
        decisions,
        seed: mixSeed(seed, turn, 2),
        count,
        playout,
      });
      return choices.map((choice) => ({
        proposal: choice.proposal,
        ...(choice.command === null ? {} : { command: choice.command }),
        compute: choice.compute,
      }));
    },
  };
}
