// Choice-constrained generation over a plain chat API: the options are listed in the prompt and
// the answer is matched back to one of them, asking again (seed + 1) while it is none of them. No
// scoring is involved, so no choice logprobs.
import type { ChatMessage, GenerateResult, ResolvedGenerateRequest } from '@pilotrl/core';
import { LlmResponseError, snippet } from './errors';
import type { ChatCompletionResponse } from './openai-wire';
import { firstChoice, logprobFields, tokensOf, type WireSettings, wireBody } from './wire-mapping';

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

/** How `askForChoice` reaches the server and reports. */
export interface ChoiceAsking {
  /** Sends one chat-completions body; resolves with the completion. */
  complete(body: Record<string, unknown>): Promise<ChatCompletionResponse>;
  wire: WireSettings;
  /** Questions asked before giving up on answers that are none of the choices. */
  attempts: number;
  policyVersion: number;
  /** `POST <baseUrl>/chat/completions`, for messages. */
  endpoint: string;
  /** Takes the API key out of a message. */
  redact(text: string): string;
}

/** A GBNF grammar (llama.cpp's) whose only sentences are the `choices`, verbatim. */
export function choiceGrammar(choices: readonly string[]): string {
  const literal = (choice: string) =>
    `"${choice
      .replace(/[\\"]/g, (char) => `\\${char}`)
      .replace(/\n/g, '\\n')
      .replace(/\r/g, '\\r')
      .replace(/\t/g, '\\t')}"`;
  return `root ::= ${choices.map(literal).join(' | ')}`;
}

/**
 * Asks for one of `choices` until an answer matches (with `guided_choice` under the vLLM dialect
 * and a `grammar` under llama.cpp's, so that the first one does). Token ids and logprobs are reported only for a verbatim answer.
 */
export async function askForChoice(
  request: ResolvedGenerateRequest,
  choices: readonly string[],
  asking: ChoiceAsking,
): Promise<GenerateResult> {
  const answers: string[] = [];
  for (let tryIndex = 0; tryIndex < asking.attempts; tryIndex++) {
    const body = wireBody(asking.wire, {
      ...request,
      messages: withChoicePrompt(request.messages, choices),
      stop: [],
      ...(request.seed === undefined ? {} : { seed: request.seed + tryIndex }),
    });
    Object.assign(body, logprobFields(asking.wire, 'generate'));
    if (asking.wire.dialect === 'vllm') body.guided_choice = choices;
    if (asking.wire.dialect === 'llama-cpp') body.grammar = choiceGrammar(choices);
    const response = await asking.complete(body);
    const answer = firstChoice(response).message.content ?? '';
    const index = matchChoice(answer, choices);
    if (index !== undefined) {
      const exact = answer === choices[index];
      const { tokenIds, logprobs } = exact
        ? tokensOf(response, asking.endpoint)
        : { tokenIds: [], logprobs: [] };
      return {
        text: choices[index]!,
        tokenIds,
        logprobs,
        promptTokenIds: exact ? (response.prompt_token_ids ?? []) : [],
        finishReason: 'choice',
        choiceIndex: index,
        policyVersion: asking.policyVersion,
      };
    }
    answers.push(answer);
  }
  throw new LlmResponseError(
    asking.endpoint,
    asking.redact(
      `${asking.endpoint}: model ${asking.wire.model} answered none of the ${choices.length} choices in ${asking.attempts} attempts (last answer: ${snippet(answers.at(-1) ?? '')}); use dialect 'vllm' with a server that supports guided_choice, dialect 'llama-cpp' with llama.cpp's server (grammar), or raise choiceAttempts`,
    ),
  );
}
