// Errors of the LLM client and server, and the pieces of their messages: the endpoint without
// credentials, replies quoted on one line. An error never carries the API key: every text that
// reaches one passes through `redactSecret` first.
import { PilotRLError, printable } from '@pilotrl/core';

/**
 * Why a request failed: the server answered with an error status, answered 2xx with a body that is
 * not the answer asked for (truncated JSON, no choices) or one longer than `maxReplyBytes`, the
 * connection broke, it timed out, or the caller aborted it.
 */
export type LlmFailureReason = 'http' | 'malformed' | 'too_large' | 'network' | 'timeout' | 'aborted';

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

/** The start of a reply, quoted on one line: JSON escapes the C0 controls, `printable` the rest. */
export function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return printable(
    JSON.stringify(flat.length > 300 ? `${flat.slice(0, 300)}...` : flat),
    Number.POSITIVE_INFINITY,
  );
}

/** The `error.message` of an OpenAI-shaped error body, else the start of the body. */
export function errorMessageOf(body: string): string {
  try {
    const message = (JSON.parse(body) as { error?: { message?: unknown } }).error?.message;
    if (typeof message === 'string') return snippet(message);
  } catch {
    // Not JSON: show the raw start below.
  }
  return snippet(body);
}
