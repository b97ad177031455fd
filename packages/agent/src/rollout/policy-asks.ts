// What a strategy asks of the policy, and the one batched call that answers every ask of a round:
// the scheduler builds each ask's prompt, and an ask may want several samples of that one prompt.
import type { GenerateRequest, GenerateResult, Policy } from '@pilotrl/core';
import { sampleSeed } from '../best-of-n';
import { callPolicy } from '../policy-call';

/** Samples of one prompt: each with its own seed (the first with the request's own). */
export interface Samples {
  count: number;
  /** The temperature of every sample after the first, which keeps the request's own; unset: the request's. */
  temperature?: number;
}

/** One generation a strategy needs, before its prompt is built. */
export interface PolicyAsk {
  /** What the prompt asks for (appended to the prompt), and the tokens to keep free for the answer. */
  prompt: { request: string; reserveTokens: number };
  /** The generation, less the messages the scheduler builds. */
  request: Omit<GenerateRequest, 'messages'>;
  /** What such requests are called in errors. */
  what: string;
  samples?: Samples;
}

/** An ask with its prompt built. */
export interface PromptedAsk {
  request: GenerateRequest;
  samples?: Samples;
}

/** The request of `ask` with its prompt's messages, laid out as requests always were (kind first). */
export function withMessages(ask: PolicyAsk, messages: GenerateRequest['messages']): GenerateRequest {
  return { kind: ask.request.kind, messages, ...ask.request };
}

/** Answers every ask in one policy call; each ask gets one result per sample, in order. */
export async function askPolicy(
  policy: Policy,
  asks: readonly PromptedAsk[],
  timeoutMs: number,
  what: string,
): Promise<GenerateResult[][]> {
  const requests: GenerateRequest[] = [];
  for (const { request, samples } of asks) {
    if (samples === undefined) {
      requests.push(request);
      continue;
    }
    for (let index = 0; index < samples.count; index += 1) requests.push(sampleOf(request, samples, index));
  }
  const results = await callPolicy(policy, requests, timeoutMs, what);
  let next = 0;
  return asks.map(({ samples }) => {
    const count = samples?.count ?? 1;
    next += count;
    return count === 1 ? [results[next - 1]!] : results.slice(next - count, next);
  });
}

function sampleOf(request: GenerateRequest, samples: Samples, index: number): GenerateRequest {
  return {
    ...request,
    seed: sampleSeed(request.seed ?? 0, index),
    ...(index === 0 || samples.temperature === undefined ? {} : { temperature: samples.temperature }),
  };
}
