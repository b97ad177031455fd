// The sampler contract: batched generation that returns text, token ids and logprobs.
import { z } from 'zod';

export const chatMessageSchema = z.object({
  role: z.enum(['system', 'user', 'assistant']),
  content: z.string(),
});
export type ChatMessage = z.infer<typeof chatMessageSchema>;

export const generateRequestSchema = z.object({
  /**
   * What an agent's request asks for: its global plan (written, revised, chosen among candidates or
   * built from plan steps) or its next action. Policies that script their replies answer by it;
   * requests made outside an agent's turn leave it out.
   */
  kind: z.enum(['plan', 'act']).optional(),
  messages: z.array(chatMessageSchema).min(1),
  maxTokens: z.number().int().positive().default(256),
  temperature: z.number().min(0).default(1),
  topP: z.number().gt(0).max(1).default(1),
  /** Generation stops after the first of these strings; it is kept in the text. */
  stop: z.array(z.string().min(1)).default([]),
  seed: z.number().int().nonnegative().optional(),
  /** When set, the output is exactly one of these strings (constrained decoding). */
  choices: z.array(z.string().min(1)).min(1).optional(),
});
export type GenerateRequest = z.input<typeof generateRequestSchema>;
export type ResolvedGenerateRequest = z.output<typeof generateRequestSchema>;

export const generateResultSchema = z.object({
  text: z.string(),
  /** Ids of the generated tokens; empty when the backend does not expose them. */
  tokenIds: z.array(z.number().int().nonnegative()),
  /** Logprob of each generated token under the sampling distribution; same length as tokenIds. */
  logprobs: z.array(z.number()),
  /** Ids the prompt was rendered to; empty when the backend does not expose them. */
  promptTokenIds: z.array(z.number().int().nonnegative()),
  finishReason: z.enum(['stop', 'length', 'choice']),
  /** With `choices`: the index chosen and the log-probability of every choice. */
  choiceIndex: z.number().int().nonnegative().optional(),
  choiceLogprobs: z.array(z.number()).optional(),
  /**
   * With `choices`: per generated token, the token ids decoding could pick at that point (the
   * continuations of the choices that share the prefix so far). `logprobs` are normalised over
   * these sets; a trainer given them (`allowedTokenIds` on a datum) computes the same logprobs.
   */
  allowedTokenIds: z.array(z.array(z.number().int().nonnegative()).min(1)).optional(),
  /** Version of the weights that produced this sample. */
  policyVersion: z.number().int().nonnegative(),
});
export type GenerateResult = z.infer<typeof generateResultSchema>;

export interface Policy {
  readonly name: string;
  /** Increments whenever the weights change. */
  readonly version: number;
  generate(
    requests: readonly GenerateRequest[],
    options?: { signal?: AbortSignal },
  ): Promise<GenerateResult[]>;
  /** Exact token count of `text` under this policy's tokenizer, when it has one. */
  countTokens?(text: string): number;
  /**
   * Context tokens `choices` take after the prompt when this policy scores them, when it knows:
   * a policy that packs all choices into one sequence needs more than the longest one.
   */
  choiceTokens?(choices: readonly string[]): number;
  /**
   * Drops whatever state earlier requests left (caches), so that the replies to what follows depend
   * only on the weights and the requests; a rollout calls it before its first request.
   */
  resetCaches?(): void;
}
