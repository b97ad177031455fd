// What the scheduler's phases share: the wave's context, building an episode's prompt (and ending
// the episode where none fits), and ending episodes, which only the scheduler does.
import type { ChatMessage, VectorEnv, VectorStepChecks } from '@pilotrl/core';
import type { z } from 'zod';
import type { Agent } from '../agent';
import type { EpisodeEnd, EpisodeState } from './episode-state';
import type { rolloutOptionsSchema } from './rollout-options';
import type { RolloutStrategies } from './strategies';

export interface WaveContext {
  agent: Agent;
  vectorEnv: VectorEnv;
  config: z.output<typeof rolloutOptionsSchema>;
  strategies: RolloutStrategies;
  /** With recordStepChecks: the vector env that hands out its members' checks. */
  checking: VectorStepChecks | undefined;
}

export function endEpisode(episode: EpisodeState, end: EpisodeEnd): void {
  episode.end = end;
}

/**
 * The messages of `episode`'s prompt asking for `request`, with `reserveTokens` kept for the
 * answer; undefined when it cannot fit, which ends the episode. A live episode has recorded every
 * turn before the one it is prompted for.
 */
export function promptFor(
  episode: EpisodeState,
  { request, reserveTokens }: { request: string; reserveTokens: number },
): ChatMessage[] | undefined {
  const built = episode.prompts.build(request, reserveTokens);
  const { counts } = episode;
  if (built.cut) counts.contextCuts += 1;
  counts.omittedTurnsMax = Math.max(counts.omittedTurnsMax, built.omittedTurns);
  if (built.kind === 'fits') return built.messages;
  const prompt = { tokens: built.tokens, budgetTokens: built.budgetTokens };
  endEpisode(episode, { reason: 'context_overflow', turn: episode.turns.length, prompt });
  return undefined;
}

export function joinErrors(existing: string | null, added: string): string {
  return existing === null ? added : `${existing}; ${added}`;
}
