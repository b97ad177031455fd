// Prompts from a state view: one user message, the view's text of where the episode stands plus
// the request, rebuilt every turn (no conversation to fit or cut).
import type { EpisodeView, EpisodeViewFactory, StepResult } from '@pilotrl/core';
import { countMessageTokens, type TokenCounter } from '../token-budget';
import type { BuiltPrompt, EpisodePrompts, PromptStrategy } from './prompt-strategy';

interface Settings {
  view: EpisodeViewFactory;
  contextTokens: number;
  count: TokenCounter;
}

export function stateViewPrompts(settings: Settings): PromptStrategy {
  return {
    id: 'view',
    open: ({ goal, observation }) =>
      new ViewPrompts(settings, settings.view({ goal, observation: observation.observation })),
  };
}

class ViewPrompts implements EpisodePrompts {
  constructor(
    private readonly settings: Settings,
    private readonly view: EpisodeView,
  ) {}

  build(request: string, reserveTokens: number): BuiltPrompt {
    const text = this.view.prompt();
    const messages = [{ role: 'user' as const, content: request === '' ? text : `${text}\n${request}` }];
    const tokens = countMessageTokens(messages, this.settings.count);
    const budgetTokens = this.settings.contextTokens - reserveTokens;
    return tokens > budgetTokens
      ? { kind: 'overflow', tokens, budgetTokens, cut: false, omittedTurns: 0 }
      : { kind: 'fits', messages, cut: false, omittedTurns: 0 };
  }

  unread(): void {}

  played(_answer: string, command: string, result: StepResult): void {
    this.view.observe(command, result.observation);
  }
}
