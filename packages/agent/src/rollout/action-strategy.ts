// How an action is read, chosen once per agent: written as free text and matched onto an admissible
// command (action-free-text.ts), or chosen among the admissible commands (action-choice.ts).
import type { GenerateResult } from '@pilotrl/core';
import type { EpisodeState } from './episode-state';
import type { PolicyAsk } from './policy-asks';

/** The act generation an episode needs, or why it cannot act at all. */
export type ActAsk = { kind: 'ask'; ask: PolicyAsk } | { kind: 'no_actions'; envError: string };

/** What the recorded answer of a turn says. */
export type ActionReading =
  | { kind: 'unreadable'; formatError: string; text: string }
  | {
      kind: 'action';
      thought: string | null;
      command: string;
      text: string;
      /** The action-matcher rule that found the command in free text. */
      rule?: string;
    };

export interface ActionStrategy {
  /** The act generation of `episode` at `turn`. */
  ask(episode: EpisodeState, turn: number): ActAsk;
  /** The admissible command an answer names, or null when it names none, for a search to compare. */
  command(admissible: readonly string[], result: GenerateResult): string | null;
  /** Reads the answer recorded for the turn. */
  read(admissible: readonly string[], result: GenerateResult): ActionReading;
}
