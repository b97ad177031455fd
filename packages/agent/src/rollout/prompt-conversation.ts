// Prompts as a conversation: the system message, the goal with the opening observation, then the
// past turns that fit the context (oldest dropped first, long text cut in the middle).
import type { StepResult } from '@pilotrl/core';
import type { Paradigm, PromptTemplate } from '../prompt-templates';
import { fitConversation, type TokenCounter } from '../token-budget';
import type { BuiltPrompt, EpisodePrompts, PromptStrategy } from './prompt-strategy';

interface Settings {
  template: PromptTemplate;
  paradigm: Paradigm;
  contextTokens: number;
  historyTurns: number;
  count: TokenCounter;
}

export function conversationPrompts(settings: Settings): PromptStrategy {
  return {
    id: settings.template.id,
    open: ({ goal, observation }) => new Conversation(settings, goal, observation),
  };
}

class Conversation implements EpisodePrompts {
  private readonly history: { assistant: string; user: string }[] = [];

  constructor(
    private readonly settings: Settings,
    private readonly goal: string,
    private readonly start: StepResult,
  ) {}

  build(request: string, reserveTokens: number): BuiltPrompt {
    const { template, paradigm, contextTokens, historyTurns, count } = this.settings;
    const promptTokens = contextTokens - reserveTokens;
    const fitted = fitConversation(
      { system: template.system(paradigm), intro: this.intro(), history: this.history, request },
      { promptTokens, historyTurns, count },
    );
    const { messages, cut, omittedTurns, tokens } = fitted;
    return fitted.overflow
      ? { kind: 'overflow', tokens, budgetTokens: promptTokens, cut, omittedTurns }
      : { kind: 'fits', messages, cut, omittedTurns };
  }

  unread(answer: string, formatError: string | null, current: StepResult): void {
    this.history.push({
      assistant: answer,
      user: `Your answer could not be read (${formatError}). ${this.observed(current)}`,
    });
  }

  played(answer: string, _command: string, result: StepResult): void {
    this.history.push({ assistant: answer, user: this.observed(result) });
  }

  /** The goal and the opening observation, with the commands admissible until the first turn is played. */
  private intro(): string {
    return this.settings.template.intro({
      task: this.goal,
      observation: this.start.observation,
      admissibleActions: this.history.length === 0 ? this.start.admissibleActions : [],
    });
  }

  private observed({ observation, admissibleActions }: StepResult): string {
    return this.settings.template.observation({ observation, admissibleActions });
  }
}
