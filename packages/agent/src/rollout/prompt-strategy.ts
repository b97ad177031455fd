// How the rollout builds a prompt, chosen once per agent: the conversation so far fitted into the
// context (prompt-conversation.ts) or one message rebuilt from the env's state view each turn
// (prompt-state-view.ts). A prompt that cannot fit is reported, never acted on: ending the episode
// is the scheduler's call.
import type { ChatMessage, StepResult } from '@pilotrl/core';

/** A prompt built within the context left after the answer's reserve, or why none fits. */
export type BuiltPrompt =
  | { kind: 'fits'; messages: ChatMessage[]; cut: boolean; omittedTurns: number }
  | { kind: 'overflow'; tokens: number; budgetTokens: number; cut: boolean; omittedTurns: number };

/** The prompts of one episode, and what they remember of it. */
export interface EpisodePrompts {
  /** The messages asking for `request` in at most the context less `reserveTokens`. */
  build(request: string, reserveTokens: number): BuiltPrompt;
  /** A turn whose answer could not be read: the env stands where it stood. */
  unread(answer: string, formatError: string | null, current: StepResult): void;
  /** A turn played: `command` was sent and the env answered `result`. */
  played(answer: string, command: string, result: StepResult): void;
}

export interface PromptStrategy {
  /** `metadata.promptTemplate`: the template's id, or `view`. */
  readonly id: string;
  /** The prompts of an episode that opens with `start` towards `goal`. */
  open(start: { goal: string; observation: StepResult }): EpisodePrompts;
}
