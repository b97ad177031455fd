// Choice-constrained generation over a plain chat API: the options are listed in the prompt and
// the answer is matched back to one of them. No scoring is involved, so no choice logprobs.
import type { ChatMessage } from '@pilotrl/core';

/** Appends the list of options, numbered, to the last user message (or adds one). */
export function withChoicePrompt(
  messages: readonly ChatMessage[],
  choices: readonly string[],
): ChatMessage[] {
  const list = choices.map((choice, index) => `${index + 1}. ${choice}`).join('\n');
  const instruction = `Answer with exactly one of these options, copied verbatim, and nothing else:\n${list}`;
  const last = messages.at(-1);
  if (last?.role === 'user') {
    return [...messages.slice(0, -1), { role: 'user', content: `${last.content}\n\n${instruction}` }];
  }
  return [...messages, { role: 'user', content: instruction }];
}

function normalise(text: string): string {
  return text
    .trim()
    .replace(/^["'`]+|["'`]+$/g, '')
    .replace(/[.!]+$/, '')
    .replace(/\s+/g, ' ')
    .toLowerCase();
}

/**
 * The index of the option `answer` names: verbatim; else equal after trimming quotes, a final
 * period, case and runs of spaces; else its number alone (`2`), or number and text (`2. go north`).
 */
export function matchChoice(answer: string, choices: readonly string[]): number | undefined {
  const exact = choices.indexOf(answer);
  if (exact >= 0) return exact;
  const normalised = choices.map(normalise);
  const target = normalise(answer);
  const loose = normalised.indexOf(target);
  if (loose >= 0) return loose;
  const numbered = /^(\d+)(?:[.):]\s*(.*))?$/.exec(target);
  if (numbered) {
    const index = Number(numbered[1]) - 1;
    const rest = numbered[2];
    if (
      index >= 0 &&
      index < choices.length &&
      (rest === undefined || rest === '' || rest === normalised[index])
    ) {
      return index;
    }
  }
  return undefined;
}
