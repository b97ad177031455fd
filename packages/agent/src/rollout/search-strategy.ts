// How a decision is searched, chosen once per agent: not at all (the policy's answer is played,
// search-none below) or by look-ahead over copies of the env (search-lookahead.ts). A search is
// handed every acting episode's answers at once and says which to record and what to play.
import type { GenerateResult } from '@pilotrl/core';
import type { SearchCompute } from '../search-compute';
import type { EpisodeState } from './episode-state';

/** One episode's act prompt, answered with `samplesPerAct` results. */
export interface ActProposals {
  episode: EpisodeState;
  results: readonly GenerateResult[];
}

/** Which answer the turn records, the command to play instead of the answer's own, and what it cost. */
export interface SearchDecision {
  proposal: number;
  /** Undefined: the recorded answer's own command. */
  command?: string;
  compute?: SearchCompute;
}

export interface SearchStrategy {
  /** Samples the policy writes per act prompt (the first with the plain rollout's seed). */
  readonly samplesPerAct: number;
  decide(proposals: readonly ActProposals[], turn: number): Promise<SearchDecision[]>;
}

const THE_ANSWER: SearchDecision = { proposal: 0 };

/** No search: the policy's one answer is recorded and played. */
export const noSearch: SearchStrategy = {
  samplesPerAct: 1,
  decide: async (proposals) => proposals.map(() => THE_ANSWER),
};
