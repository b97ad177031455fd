// Errors of the LLM client and server. Each names the endpoint and the reason, and never carries
// the API key: every text that reaches an error passes through `redactSecret` first.
import { PilotRLError } from '@pilotrl/core';

/**
 * Why a request failed: the server answered with an error status, answered 2xx with a body that is
 * not the answer asked for (truncated JSON, no choices), the connection broke, it timed out, or the
 * caller aborted it.
 */
export type LlmFailureReason = 'http' | 'malformed' | 'network' | 'timeout' | 'aborted';

/** A chat-completions request failed (after the retries it was allowed). */
export class LlmRequestError extends PilotRLError {
  static override readonly errorName = 'LlmRequestError';
  readonly endpoint: string;
  readonly reason: LlmFailureReason;
  readonly status: number | undefined;
  readonly attempts: number;

  constructor(
    details: { endpoint: string; reason: LlmFailureReason; status?: number; attempts: number },
    message: string,
  ) {
    super(message);
    this.endpoint = details.endpoint;
    this.reason = details.reason;
    this.status = details.status;
    this.attempts = details.attempts;
  }
}

/** The server answered 2xx, but the body is not a usable chat completion. */
export class LlmResponseError extends PilotRLError {
  static override readonly errorName = 'LlmResponseError';
  readonly endpoint: string;

  constructor(endpoint: string, message: string) {
    super(message);
    this.endpoint = endpoint;
  }
}

const REDACTED = '[redacted]';

/** Replaces every occurrence of `secret` (and any bearer token) in `text`. */
export function redactSecret(text: string, secret: string | undefined): string {
  let result = text;
  if (secret !== undefined && secret.length > 0) result = result.split(secret).join(REDACTED);
  return result.replace(/(bearer\s+)[^\s"',;]+/gi, `$1${REDACTED}`);
}

/** A URL fit for messages: credentials in the user-info part and the query string are dropped. */
export function describeEndpoint(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    parsed.search = '';
    return parsed.toString();
  } catch {
    return '(unparseable URL)';
  }
}
