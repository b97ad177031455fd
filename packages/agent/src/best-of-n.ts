// Best-of-N plans: wherever the policy writes a plan, it writes N (the first with the seed and
// temperature a plain rollout uses, so N = 1 is plain evaluation; the others sampled at the search's
// temperature, so a greedy agent still gets N plans), a scorer ranks those that parse, and the agent acts
// on the best; ties go to the earlier sample. Only the chosen plan's generation enters the episode;
// the others are counted in its compute.
import type { GenerateRequest, GenerateResult, Plan, Policy } from '@pilotrl/core';
import type { PlanCandidate } from './plan-scorers';
import { callPolicy, mixSeed } from './policy-call';
import type { SearchCompute } from './search-compute';
import type { BestOfNSearch } from './test-time-search';
import type { TokenCounter } from './token-budget';

/** The seed of sample `index` of a request: the request's own for the first. */
export const sampleSeed = (seed: number, index: number) => (index === 0 ? seed : mixSeed(seed, index));

/**
 * The index of the best candidate in each group (candidates without a plan never win unless none
 * has one; then the first), with the scoring's tokens added to each group's compute.
 */
export async function pickBestPlans(
  search: BestOfNSearch,
  groups: readonly (readonly (PlanCandidate | null)[])[],
  computes: readonly SearchCompute[],
): Promise<number[]> {
  const scorable = groups.flatMap((group, at) =>
    group.flatMap((candidate, index) => (candidate === null ? [] : [{ at, index, candidate }])),
  );
  const { scores, scoredTokens } =
    scorable.length === 0 || search.n === 1
      ? { scores: [], scoredTokens: [] }
      : await search.scorer.score(scorable.map(({ candidate }) => candidate));
  const best = groups.map(() => ({ index: 0, score: Number.NEGATIVE_INFINITY }));
  scorable.forEach(({ at, index }, position) => {
    const score = scores[position] ?? 0;
    computes[at]!.scoredTokens += scoredTokens[position] ?? 0;
    if (score > best[at]!.score) best[at] = { index, score };
  });
  return best.map(({ index }) => index);
}

/**
 * Answers each plan request with the best of `search.n` samples: one batched call for all of
 * them, `plan` reading each sample (null when it does not parse) for the scorer.
 */
export async function sampleBestPlans(input: {
  search: BestOfNSearch;
  policy: Policy;
  timeoutMs: number;
  requests: readonly GenerateRequest[];
  /** What each request's plan is written for, and how to read a sample's plan. */
  candidateOf: (request: number, result: GenerateResult) => PlanCandidate | null;
  computes: readonly SearchCompute[];
  count: TokenCounter;
}): Promise<GenerateResult[]> {
  const { search, policy, timeoutMs, requests, candidateOf, computes, count } = input;
  const n = search.n;
  const samples = requests.flatMap((request) =>
    Array.from({ length: n }, (_, index) => ({
      ...request,
      seed: sampleSeed(request.seed ?? 0, index),
      ...(index === 0 ? {} : { temperature: search.temperature }),
    })),
  );
  const results = await callPolicy(policy, samples, timeoutMs, 'plan');
  const groups = requests.map((_, at) => results.slice(at * n, at * n + n));
  const chosen = await pickBestPlans(
    search,
    groups.map((group, at) => group.map((result) => candidateOf(at, result))),
    computes,
  );
  return groups.map((group, at) => {
    group.forEach((result, index) => {
      if (index !== chosen[at]) computes[at]!.generatedTokens += discardedTokens(result, count);
    });
    return group[chosen[at]!]!;
  });
}

/** Tokens of a sample the search threw away. */
export const discardedTokens = (result: GenerateResult, count: TokenCounter) =>
  result.tokenIds.length > 0 || result.text === '' ? result.tokenIds.length : count(result.text);

/** A plan candidate from the generation that finished it. */
export function planCandidate(
  context: Omit<PlanCandidate, 'plan' | 'sequence' | 'generatedTokens'>,
  plan: Plan,
  result: GenerateResult,
  generatedTokens: number,
): PlanCandidate {
  return { ...context, plan, sequence: [...result.promptTokenIds, ...result.tokenIds], generatedTokens };
}
