// A Policy that answers from a script: a list of replies used in order, or a function of the
// request. It honours `choices`, `stop` and `maxTokens`, and by default tokenizes text as UTF-8
// bytes (ids 0-255, logprob 0), so episodes built from it carry real token ids and loss masks.
import {
  type GenerateRequest,
  type GenerateResult,
  generateRequestSchema,
  InvalidArgumentError,
  type Policy,
  parseOrThrow,
  type ResolvedGenerateRequest,
} from '@pilotrl/core';
import { z } from 'zod';

/** Replies: a list consumed one per request, or a function of the request and its running index. */
export type Script = readonly string[] | ((request: ResolvedGenerateRequest, index: number) => string);

export const scriptedPolicyOptionsSchema = z.strictObject({
  name: z.string().min(1).default('scripted'),
  /** The `policyVersion` stamped on every result. */
  version: z.number().int().nonnegative().default(0),
  /** `bytes`: token ids are the UTF-8 bytes of the text; `none`: no token ids (like a remote API). */
  tokens: z.enum(['bytes', 'none']).default('bytes'),
});
export type ScriptedPolicyOptions = z.input<typeof scriptedPolicyOptionsSchema>;

/** The scripted policy, plus what it was asked, for assertions in tests. */
export interface ScriptedPolicy extends Policy {
  /** Every request received so far, with defaults filled in. */
  readonly requests: readonly ResolvedGenerateRequest[];
}

/** Log-probability given to choices the script did not pick: as close to zero probability as a double gets. */
const IMPOSSIBLE_LOGPROB = Math.log(Number.MIN_VALUE);

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The prompt as the byte tokenizer sees it: one `role: content` block per message. */
const renderPrompt = (request: ResolvedGenerateRequest) =>
  request.messages.map((m) => `${m.role}: ${m.content}\n`).join('');

export function createScriptedPolicy(script: Script, options: ScriptedPolicyOptions = {}): ScriptedPolicy {
  const opts = parseOrThrow(scriptedPolicyOptionsSchema, options, 'scripted policy options');
  if (typeof script !== 'function' && !Array.isArray(script)) {
    throw new InvalidArgumentError('createScriptedPolicy: script must be a list of replies or a function');
  }
  const requests: ResolvedGenerateRequest[] = [];
  const tokenize = (text: string) => (opts.tokens === 'bytes' ? [...encoder.encode(text)] : []);

  const answer = (request: ResolvedGenerateRequest, index: number): GenerateResult => {
    let reply: string;
    if (typeof script === 'function') {
      reply = script(request, index);
    } else if (index < script.length) {
      reply = script[index]!;
    } else {
      throw new InvalidArgumentError(
        `scripted policy "${opts.name}": request ${index + 1} arrived but the script has only ${script.length} replies`,
      );
    }
    const base = { promptTokenIds: tokenize(renderPrompt(request)), policyVersion: opts.version };
    if (request.choices !== undefined) {
      const choiceIndex = request.choices.indexOf(reply);
      if (choiceIndex < 0) {
        throw new InvalidArgumentError(
          `scripted policy "${opts.name}": reply ${JSON.stringify(reply)} to request ${index + 1} is not one of ` +
            `its choices (${request.choices.map((c) => JSON.stringify(c)).join(', ')})`,
        );
      }
      const tokenIds = tokenize(reply);
      return {
        ...base,
        text: reply,
        tokenIds,
        logprobs: tokenIds.map(() => 0),
        finishReason: 'choice',
        choiceIndex,
        choiceLogprobs: request.choices.map((_, i) => (i === choiceIndex ? 0 : IMPOSSIBLE_LOGPROB)),
      };
    }
    let text = reply;
    let finishReason: GenerateResult['finishReason'] = 'stop';
    const stopAt = Math.min(
      ...request.stop.map((s) => {
        const at = text.indexOf(s);
        return at < 0 ? Number.POSITIVE_INFINITY : at + s.length;
      }),
    );
    if (Number.isFinite(stopAt)) text = text.slice(0, stopAt);
    let tokenIds = tokenize(text);
    if (opts.tokens === 'bytes' && tokenIds.length > request.maxTokens) {
      tokenIds = tokenIds.slice(0, request.maxTokens);
      text = decoder.decode(Uint8Array.from(tokenIds));
      finishReason = 'length';
    }
    return { ...base, text, tokenIds, logprobs: tokenIds.map(() => 0), finishReason };
  };

  return {
    name: opts.name,
    version: opts.version,
    requests,
    async generate(batch: readonly GenerateRequest[]) {
      const resolved = batch.map((r, i) => parseOrThrow(generateRequestSchema, r, `generate request ${i}`));
      return resolved.map((request) => {
        requests.push(request);
        return answer(request, requests.length - 1);
      });
    },
    countTokens: opts.tokens === 'bytes' ? (text: string) => encoder.encode(text).length : undefined,
  };
}
