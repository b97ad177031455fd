// What an episode cost in compute, test-time search included, in units that compare across
// searches and backends: tokens the policy generated (kept or thrown away), tokens a scorer read,
// env steps (on the real env and on copies), copies made, and branches a search gave up on.
import { type Episode, type Generation, parseOrThrow } from '@pilotrl/core';
import { z } from 'zod';
import type { TokenCounter } from './token-budget';

export const searchComputeSchema = z.object({
  /** Tokens the policy generated for the episode: those recorded in its turns and those a search discarded. */
  generatedTokens: z.number().int().nonnegative(),
  /** Tokens a scorer read: whole sequences run through a value head, plans read by a judge. */
  scoredTokens: z.number().int().nonnegative(),
  /** Env steps: those of the episode and those played on copies. */
  envSteps: z.number().int().nonnegative(),
  /** State copies made. */
  copies: z.number().int().nonnegative(),
  /** Look-ahead branches abandoned because a step check failed, the episode was lost or the value dropped. */
  backtracks: z.number().int().nonnegative(),
});
export type SearchCompute = z.infer<typeof searchComputeSchema>;

export const emptyCompute = (): SearchCompute => ({
  generatedTokens: 0,
  scoredTokens: 0,
  envSteps: 0,
  copies: 0,
  backtracks: 0,
});

/** Adds `more` into `total`. */
export function addCompute(total: SearchCompute, more: Partial<SearchCompute>): void {
  for (const key of Object.keys(total) as (keyof SearchCompute)[]) total[key] += more[key] ?? 0;
}

/**
 * Tokens a generation's model wrote: its loss-masked tokens, or `count` of its text when the
 * backend returned no token ids (a remote model without them).
 */
export function generatedTokensOf(generation: Generation, count: TokenCounter): number {
  const written = generation.lossMask.reduce<number>((sum, bit) => sum + bit, 0);
  return written === 0 && generation.text !== '' ? count(generation.text) : written;
}

/** An episode's compute record (`metadata.compute`), or undefined for an episode recorded without one. */
export function computeOf(episode: Episode): SearchCompute | undefined {
  const recorded = episode.metadata.compute;
  return recorded === undefined
    ? undefined
    : parseOrThrow(searchComputeSchema, recorded, `compute record of episode "${episode.id}"`);
}

/** The compute of all `episodes` that recorded one, summed. */
export function totalCompute(episodes: readonly Episode[]): SearchCompute {
  const total = emptyCompute();
  for (const episode of episodes) addCompute(total, computeOf(episode) ?? {});
  return total;
}
