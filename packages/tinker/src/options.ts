// Options of `createTinkerPolicy`, validated at the boundary.
import { z } from 'zod';
import type { ChatRenderer } from './chat-renderer';
import type { TextTokenizer } from './tokenizer';

export const tinkerPolicyOptionsSchema = z.object({
  /** Server root without `/api/v1`, e.g. `http://127.0.0.1:8000` (SkyRL) or the hosted service's URL. */
  baseUrl: z.url(),
  /** Hosted Tinker's key, sent as `X-API-Key`; SkyRL needs none. */
  apiKey: z.string().min(1).optional(),
  /** The base model's name as the server lists it (`get_server_capabilities`). */
  baseModel: z.string().min(1),
  /** A local directory with the base model's `tokenizer.json` (and `tokenizer_config.json`). */
  tokenizerDir: z.string().min(1),
  /** LoRA rank; 0 asks for a full fine-tune (SkyRL's FSDP/Megatron backends; hosted Tinker is LoRA only). */
  loraRank: z.number().int().nonnegative().default(32),
  /** Seed of the LoRA initialisation (the server draws one when absent). */
  seed: z.number().int().nonnegative().optional(),
  /** The policy's name (default: `tinker:<baseModel>`). */
  name: z.string().min(1).optional(),
  /** Session heartbeat period (the SDK beats every 10 s; SkyRL drops a session after 300 s without). */
  heartbeatMs: z.number().int().positive().default(10_000),
  /** Time limit of one HTTP request other than a long poll. */
  requestTimeoutMs: z.number().int().positive().default(60_000),
  /** Client-side limit of one `retrieve_future` long poll (the SDK's is 45 s). */
  pollTimeoutMs: z.number().int().positive().default(45_000),
  /** Retries of a submission (connection failure, 408, 429, 5xx) and resubmissions after a 410. */
  maxRetries: z.number().int().nonnegative().default(3),
  /** Polls after connection failures before a running request is given up (the server is down). */
  maxConnectionRetries: z.number().int().nonnegative().default(5),
  /** Backoff before retry k: min(maxBackoffMs, baseBackoffMs·2^k); 429 and lost connections while polling wait min(2^k s, maxBackoffMs). */
  baseBackoffMs: z.number().int().nonnegative().default(500),
  maxBackoffMs: z.number().int().nonnegative().default(30_000),
  /** Longest answer body read (a forward pass's logprobs over a big batch are tens of MB); a longer one fails as `too_large`. */
  maxResponseBytes: z
    .number()
    .int()
    .positive()
    .default(256 * 1024 * 1024),
  /** Longest wait for one request's result (JIT compiles make the first ones slow). */
  futureDeadlineMs: z.number().int().positive().default(900_000),
  /** Ask the server, before training, whether the local tokenizer's ids fit its model. */
  checkTokenizer: z.boolean().default(true),
});

export type TinkerPolicyOptions = z.input<typeof tinkerPolicyOptionsSchema> & {
  /** How chat messages become prompt ids (default: ChatML, as Qwen models use). */
  chatRenderer?: (tokenizer: TextTokenizer) => ChatRenderer;
};
export type ResolvedTinkerPolicyOptions = z.output<typeof tinkerPolicyOptionsSchema>;
