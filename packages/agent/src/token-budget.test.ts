import { describe, expect, it } from 'vitest';
import {
  choiceReserve,
  countMessageTokens,
  cutMiddle,
  estimateTokens,
  fitConversation,
  MESSAGE_OVERHEAD_TOKENS,
  tokenCounterFor,
} from './token-budget';

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
const history = Array.from({ length: 6 }, (_, index) => ({
  assistant: `<thought>turn ${index}</thought><action>look</action>`,
  user: `Observation ${index}: ${'x'.repeat(40)}`,
}));
const parts = {
  system: 'You are an agent.',
  intro: `Goal: win.\n${'y'.repeat(200)}`,
  history,
  request: 'Act now.',
};

describe('token counting', () => {
  it('over-counts English for subword vocabularies and counts non-ASCII by bytes', () => {
    expect(estimateTokens('go to the fridge 1')).toBe(6);
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('éé')).toBe(2);
  });

  it('uses the policy counter when there is one', () => {
    expect(tokenCounterFor({ countTokens: (text) => text.length })('abcd')).toBe(4);
    expect(tokenCounterFor({})('abcdef')).toBe(2);
  });

  it('charges an overhead per message', () => {
    const messages = [
      { role: 'system' as const, content: 'abc' },
      { role: 'user' as const, content: 'abcdef' },
    ];
    expect(countMessageTokens(messages, bytes)).toBe(9 + 2 * MESSAGE_OVERHEAD_TOKENS);
  });
});

describe('choiceReserve', () => {
  const choices = ['go to cabinet 1', 'go to cabinet 2', 'take apple 1 from countertop 1'];
  it("keeps the room the policy's scoring of the choices takes, else the longest choice and its end", () => {
    const words = (text: string) => text.split(' ').length;
    expect(choiceReserve({ countTokens: words }, choices)).toBe(6 + 1);
    expect(choiceReserve({ countTokens: words, choiceTokens: (c) => 4 * c.length }, choices)).toBe(12);
  });
});

describe('fitConversation', () => {
  it('shows at most historyTurns turns and says how many are hidden', () => {
    const fitted = fitConversation(parts, { promptTokens: 10_000, historyTurns: 2, count: bytes });
    expect(fitted.messages.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
    ]);
    expect(fitted.omittedTurns).toBe(4);
    expect(fitted.messages[1]!.content).toContain('(4 earlier turns are not shown.)');
    expect(fitted.messages.at(-1)!.content).toBe(`${history[5]!.user}\n\nAct now.`);
    expect(fitted.cut).toBe(false);
  });

  it('drops the oldest turns to fit the budget but keeps the newest', () => {
    const full = fitConversation(parts, { promptTokens: 10_000, historyTurns: 6, count: bytes });
    const budget = full.tokens - 100;
    const fitted = fitConversation(parts, { promptTokens: budget, historyTurns: 6, count: bytes });
    expect(fitted.tokens).toBeLessThanOrEqual(budget);
    expect(fitted.omittedTurns).toBeGreaterThan(0);
    expect(fitted.messages.at(-2)!.content).toBe(history[5]!.assistant);
    expect(fitted.overflow).toBe(false);
  });

  it('cuts the intro and the newest observation in the middle when dropping turns is not enough', () => {
    const fitted = fitConversation(parts, { promptTokens: 260, historyTurns: 6, count: bytes });
    expect(fitted.cut).toBe(true);
    expect(fitted.overflow).toBe(false);
    expect(fitted.tokens).toBeLessThanOrEqual(260);
    expect(fitted.messages[1]!.content.startsWith('Goal: win.')).toBe(true);
    expect(fitted.messages.at(-1)!.content.endsWith('Act now.')).toBe(true);
  });

  it('reports an overflow when even the fixed parts do not fit', () => {
    const fitted = fitConversation(parts, { promptTokens: 20, historyTurns: 6, count: bytes });
    expect(fitted.overflow).toBe(true);
  });

  it('cutMiddle keeps the head and the tail', () => {
    const text = `HEAD${'-'.repeat(100)}TAIL`;
    const cut = cutMiddle(text, 20);
    expect(cut.startsWith('HEAD')).toBe(true);
    expect(cut.endsWith('TAIL')).toBe(true);
    expect(cut).toContain('[... cut ...]');
    expect(cutMiddle('short', 20)).toBe('short');
  });
});
