// A deterministic Policy for tests and demos: a function decides each reply, characters are the
// tokens (id = UTF-16 code unit), and every token has logprob 0 because the script is certain.
// It honours maxTokens, stop strings (kept in the text, as the contract says) and choices.
import {
  type GenerateRequest,
  type GenerateResult,
  generateRequestSchema,
  InvalidArgumentError,
  type Policy,
  parseOrThrow,
  type ResolvedGenerateRequest,
} from '@pilotrl/core';

export interface ScriptedPolicyOptions {
  /** The reply to one request; `call` counts requests seen so far, from 0. */
  respond: (request: ResolvedGenerateRequest, call: number) => string;
  name?: string;
  version?: number;
}

export interface ScriptedPolicy extends Policy {
  /** Every request received, resolved, in order. */
  readonly requests: readonly ResolvedGenerateRequest[];
  /** Sizes of the `generate` batches received, in order. */
  readonly batchSizes: readonly number[];
}

const toIds = (text: string) => Array.from({ length: text.length }, (_, index) => text.charCodeAt(index));

export function createScriptedPolicy(options: ScriptedPolicyOptions): ScriptedPolicy {
  const requests: ResolvedGenerateRequest[] = [];
  const batchSizes: number[] = [];
  const version = options.version ?? 0;

  const one = (request: ResolvedGenerateRequest): GenerateResult => {
    const call = requests.length;
    requests.push(request);
    const reply = options.respond(request, call);
    const promptTokenIds = toIds(
      request.messages.map((message) => `${message.role}: ${message.content}\n`).join(''),
    );
    if (request.choices !== undefined) {
      const choiceIndex = request.choices.indexOf(reply);
      if (choiceIndex < 0) {
        throw new InvalidArgumentError(`Scripted reply "${reply}" is not one of the request's choices`);
      }
      const ids = toIds(reply);
      return {
        text: reply,
        tokenIds: ids,
        logprobs: ids.map(() => 0),
        promptTokenIds,
        finishReason: 'choice',
        choiceIndex,
        policyVersion: version,
      };
    }
    let text = reply;
    let finishReason: GenerateResult['finishReason'] = 'stop';
    const stopAt = request.stop
      .map((stop) => {
        const at = reply.indexOf(stop);
        return at < 0 ? Number.POSITIVE_INFINITY : at + stop.length;
      })
      .reduce((a, b) => Math.min(a, b), Number.POSITIVE_INFINITY);
    if (Number.isFinite(stopAt)) text = reply.slice(0, stopAt);
    if (text.length > request.maxTokens) {
      text = text.slice(0, request.maxTokens);
      finishReason = 'length';
    }
    const ids = toIds(text);
    return {
      text,
      tokenIds: ids,
      logprobs: ids.map(() => 0),
      promptTokenIds,
      finishReason,
      policyVersion: version,
    };
  };

  return {
    name: options.name ?? 'scripted',
    version,
    requests,
    batchSizes,
    async generate(batch: readonly GenerateRequest[]) {
      batchSizes.push(batch.length);
      return batch.map((request, index) =>
        one(parseOrThrow(generateRequestSchema, request, `generate request ${index}`)),
      );
    },
    countTokens: (text: string) => text.length,
  };
}
