// The OpenAI chat-completions wire format, as zod schemas: what the server accepts and what the
// client accepts back. Fields marked "extension" are the vLLM/SGLang additions this package speaks
// (token ids, guided choice, stop strings kept in the output).
import { z } from 'zod';

const textPartSchema = z.object({ type: z.literal('text'), text: z.string() });

export const wireMessageSchema = z.object({
  role: z.enum(['system', 'developer', 'user', 'assistant']),
  content: z.union([z.string(), z.array(textPartSchema)]),
});

export const chatCompletionRequestSchema = z.object({
  model: z.string().min(1),
  messages: z.array(wireMessageSchema).min(1),
  max_tokens: z.number().int().positive().optional(),
  max_completion_tokens: z.number().int().positive().optional(),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().gt(0).max(1).optional(),
  stop: z.union([z.string().min(1), z.array(z.string().min(1))]).nullish(),
  seed: z.number().int().nonnegative().nullish(),
  n: z.number().int().min(1).max(16).optional(),
  logprobs: z.boolean().nullish(),
  /** Alternatives per position are not available from a Policy, so only 0 is accepted. */
  top_logprobs: z.literal(0).nullish(),
  /** Answered as server-sent events; the whole completion arrives in one content chunk per choice. */
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).nullish(),
  /** Extension: the output must be exactly one of these strings. */
  guided_choice: z.array(z.string().min(1)).min(1).optional(),
  /** Extension: return prompt and completion token ids. */
  return_token_ids: z.boolean().optional(),
  /** Extension: keep the matched stop string at the end of the content. */
  include_stop_str_in_output: z.boolean().optional(),
});
export type ChatCompletionRequest = z.infer<typeof chatCompletionRequestSchema>;

export const tokenLogprobSchema = z.object({
  token: z.string(),
  logprob: z.number(),
  bytes: z.array(z.number()).nullish(),
  top_logprobs: z.array(z.unknown()).nullish(),
});

export const chatCompletionResponseSchema = z.object({
  id: z.string().optional(),
  model: z.string().optional(),
  choices: z
    .array(
      z.object({
        index: z.number().int().nonnegative().optional(),
        message: z.object({ role: z.string().optional(), content: z.string().nullable() }),
        finish_reason: z.string().nullable(),
        /** Extension: the stop string (or token id) that ended generation. */
        stop_reason: z.union([z.string(), z.number(), z.null()]).optional(),
        logprobs: z.object({ content: z.array(tokenLogprobSchema).nullable() }).nullish(),
        /** Extension: ids of the generated tokens. */
        token_ids: z.array(z.number().int().nonnegative()).nullish(),
      }),
    )
    .min(1),
  /** Extension: ids of the prompt as the server rendered it. */
  prompt_token_ids: z.array(z.number().int().nonnegative()).nullish(),
  usage: z
    .object({ prompt_tokens: z.number().optional(), completion_tokens: z.number().optional() })
    .nullish(),
});
export type ChatCompletionResponse = z.infer<typeof chatCompletionResponseSchema>;

export const modelListSchema = z.object({
  data: z.array(z.object({ id: z.string() })),
});

/** vLLM's `return_tokens_as_token_ids` spelling of a token: `token_id:123`. */
export function tokenIdFromText(token: string): number | undefined {
  const match = /^token_id:(\d+)$/.exec(token);
  return match ? Number(match[1]) : undefined;
}
