// Best-of-N plans: the agent's plan strategy writes N plans wherever it writes one (see
// best-of-n.ts for the seeds and temperatures), the search's scorer ranks those that parse in one
// call for all episodes, and the best is adopted; the others' tokens go to the episode's compute.
import { pickBestPlans, planCandidate } from '../best-of-n';
import { emptyCompute, generatedTokensOf } from '../search-compute';
import type { BestOfNSearch } from '../test-time-search';
import type { TokenCounter } from '../token-budget';
import { type EpisodeState, planContextOf } from './episode-state';
import type { PlanDraft, PlanStrategy } from './plan-strategy';
import type { Samples } from './policy-asks';

export function bestOfNPlans(input: {
  search: BestOfNSearch;
  count: TokenCounter;
  /** The agent's plan strategy, writing `samples` plans per episode. */
  plans: (samples: Samples) => PlanStrategy;
}): PlanStrategy {
  const { search, count } = input;
  const inner = input.plans({ count: search.n, temperature: search.temperature });
  const written = (draft: PlanDraft) =>
    draft.generations.reduce((sum, generation) => sum + generatedTokensOf(generation, count), 0);
  const candidateOf = (episode: EpisodeState, draft: PlanDraft) =>
    draft.plan === null || draft.last === undefined
      ? null
      : planCandidate(planContextOf(episode), draft.plan, draft.last, written(draft));
  return {
    write: inner.write,
    async choose(writings) {
      const computes = writings.map(() => emptyCompute());
      const best = await pickBestPlans(
        search,
        writings.map(({ episode, drafts }) => drafts.map((draft) => candidateOf(episode, draft))),
        computes,
      );
      return writings.map(({ drafts }, at) => {
        const compute = computes[at]!;
        drafts.forEach((draft, index) => {
          if (index !== best[at]) compute.generatedTokens += written(draft);
        });
        return { draft: drafts[best[at]!]!, compute };
      });
    },
  };
}
