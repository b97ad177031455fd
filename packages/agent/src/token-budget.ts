// Counting prompt tokens and fitting a conversation into the policy's context window: keep the
// system message and the task, show the most recent turns that fit, and cut long text in the middle.
import type { ChatMessage, Policy } from '@pilotrl/core';

/**
 * Tokens charged per chat message for role markers and separators. Chat templates spend 3-5
 * tokens per message; 4 errs on the safe side for the common ones.
 */
export const MESSAGE_OVERHEAD_TOKENS = 4;

/**
 * Estimate for policies without `countTokens`: one token per 3 UTF-8 bytes, rounded up.
 * Subword vocabularies of 30k tokens or more average about 4 bytes per token on English, so
 * this over-counts and a prompt that fits by the estimate fits for real. It under-counts for
 * character- or byte-level tokenizers: such policies must implement `countTokens`.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 3);
}

export type TokenCounter = (text: string) => number;

/** The policy's exact counter when it has one, else `estimateTokens`. */
export function tokenCounterFor(policy: Pick<Policy, 'countTokens'>): TokenCounter {
  const count = policy.countTokens;
  return count === undefined ? estimateTokens : (text) => count.call(policy, text);
}

/**
 * Context tokens to keep free after the prompt for `choices`: what the policy says its scoring
 * takes, else the longest choice and its end token.
 */
export function choiceReserve(
  policy: Pick<Policy, 'countTokens' | 'choiceTokens'>,
  choices: readonly string[],
): number {
  if (policy.choiceTokens !== undefined) return policy.choiceTokens(choices);
  const count = tokenCounterFor(policy);
  return Math.max(...choices.map((choice) => count(choice) + 1));
}

export function countMessageTokens(messages: readonly ChatMessage[], count: TokenCounter): number {
  return messages.reduce((sum, message) => sum + count(message.content) + MESSAGE_OVERHEAD_TOKENS, 0);
}

export interface ConversationParts {
  system: string;
  /** The first user message (goal and opening observation); never dropped, cut in the middle if needed. */
  intro: string;
  /** Earlier turns, oldest first: what the model wrote, then what the env answered. */
  history: readonly { assistant: string; user: string }[];
  /** Appended to the last user message: what the model must write now. Never cut; may be empty. */
  request: string;
}

export interface FitOptions {
  /** Tokens the prompt may use (context window minus the tokens reserved for the answer). */
  promptTokens: number;
  /** Most past turns to show. */
  historyTurns: number;
  count: TokenCounter;
}

export interface FittedConversation {
  messages: ChatMessage[];
  /** Past turns left out because of the window or the budget. */
  omittedTurns: number;
  /** Whether some text was cut in the middle to fit. */
  cut: boolean;
  /** The prompt does not fit even after dropping all history and cutting. */
  overflow: boolean;
  tokens: number;
}

const CUT_MARK = '\n[... cut ...]\n';

/** Keeps the head (where the goal usually is) and the tail of `text`, about `keepChars` in all. */
export function cutMiddle(text: string, keepChars: number): string {
  if (text.length <= keepChars) return text;
  const head = Math.max(0, Math.ceil(keepChars * 0.6));
  const tail = Math.max(0, keepChars - head);
  return text.slice(0, head) + CUT_MARK + (tail > 0 ? text.slice(text.length - tail) : '');
}

function assemble(
  parts: ConversationParts,
  history: ConversationParts['history'],
  omitted: number,
): ChatMessage[] {
  const note =
    omitted > 0 ? `\n\n(${omitted} earlier turn${omitted === 1 ? ' is' : 's are'} not shown.)` : '';
  const messages: ChatMessage[] = [
    { role: 'system', content: parts.system },
    { role: 'user', content: parts.intro + note },
  ];
  for (const turn of history) {
    messages.push({ role: 'assistant', content: turn.assistant }, { role: 'user', content: turn.user });
  }
  const last = messages[messages.length - 1]!;
  if (parts.request !== '') last.content = `${last.content}\n\n${parts.request}`;
  return messages;
}

/**
 * Builds the messages for one generation within `promptTokens`: the last `historyTurns` turns,
 * fewer if they do not fit (oldest dropped first; the newest turn, which holds the current
 * observation, always stays), then the intro and the newest observation cut in the middle.
 * Reports an overflow instead of throwing when nothing makes it fit.
 */
export function fitConversation(parts: ConversationParts, options: FitOptions): FittedConversation {
  let history = parts.history.slice(Math.max(0, parts.history.length - Math.max(1, options.historyTurns)));
  let omitted = parts.history.length - history.length;
  let messages = assemble(parts, history, omitted);
  let tokens = countMessageTokens(messages, options.count);
  while (tokens > options.promptTokens && history.length > 1) {
    history = history.slice(1);
    omitted += 1;
    messages = assemble(parts, history, omitted);
    tokens = countMessageTokens(messages, options.count);
  }
  let cut = false;
  let keep = 1;
  const kept = history;
  for (let attempt = 0; tokens > options.promptTokens && attempt < 8; attempt += 1) {
    keep *= Math.min(0.9, (options.promptTokens / tokens) * 0.9);
    const intro = cutMiddle(parts.intro, Math.floor(parts.intro.length * keep));
    const newest = kept[kept.length - 1];
    history =
      newest === undefined
        ? kept
        : [
            ...kept.slice(0, -1),
            {
              assistant: newest.assistant,
              user: cutMiddle(newest.user, Math.floor(newest.user.length * keep)),
            },
          ];
    cut = true;
    messages = assemble({ ...parts, intro }, history, omitted);
    tokens = countMessageTokens(messages, options.count);
  }
  return { messages, omittedTurns: omitted, cut, overflow: tokens > options.promptTokens, tokens };
}
