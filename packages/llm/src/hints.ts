// What to do about a failed request: one sentence per failure reason (and per HTTP status), put at
// the end of every `LlmRequestError` message so that it says how to fix what went wrong.
import type { LlmFailureReason } from './errors';

export function hintFor(
  reason: LlmFailureReason,
  status: number | undefined,
  apiKeyEnv: string | undefined,
): string {
  if (reason === 'timeout') return 'Raise timeoutMs or lower maxTokens.';
  if (reason === 'network') return 'Check that the server is running and that baseUrl is right.';
  if (reason === 'aborted') return 'The caller cancelled the request.';
  if (reason === 'malformed')
    return 'Is baseUrl an OpenAI-compatible /v1 endpoint? A proxy that cuts replies short also causes this.';
  if (reason === 'too_large')
    return 'Lower maxTokens, or raise maxReplyBytes if replies this long are expected.';
  if (status === 401 || status === 403) {
    return apiKeyEnv === undefined
      ? 'The server wants credentials: set apiKeyEnv to the environment variable that holds the key.'
      : `Check the API key in ${apiKeyEnv}.`;
  }
  if (status === 404)
    return 'Check that baseUrl ends with /v1 and that the model name exists (listModels()).';
  if (status === 429) return 'The server is rate limiting: lower maxConcurrency or raise retry.maxRetries.';
  if (status !== undefined && status >= 500) return 'The server failed; see its logs.';
  return 'The server rejected the request (its message is quoted above).';
}
