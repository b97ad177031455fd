// One JSON call to an AgentGym server, with AgentGym's conventions made errors: an HTTP status
// other than 200, a body that is not JSON, and a 200 with `{"error": "..."}` (how every AgentGym
// server reports a problem) each reject with an EnvError that quotes what the server said.
import { EnvError, printable, TimeoutError } from '@pilotrl/core';
import { HttpRequestError, type HttpResponse, request } from '@pilotrl/http-client';
import { ConnectFailure } from '../retry';

export interface CallOptions {
  readonly timeoutMs: number;
  /** Longest reply body read (`maxMessageBytes`). */
  readonly maxReplyBytes: number;
  /** The call in words for messages, e.g. `step`. */
  readonly what: string;
}

/** Network error codes that mean the server is not there (yet, or any more). */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
]);

/** The network failure in words: its code when it is one of UNREACHABLE's, else the cause and the error. */
function networkCause(failed: HttpRequestError): string {
  const error = failed.cause as (Error & { cause?: { message?: string } }) | undefined;
  const cause = failed.code ?? error?.cause?.message ?? error?.message ?? failed.detail;
  return UNREACHABLE.has(cause) ? cause : `${cause} (${error?.message ?? failed.detail})`;
}

/**
 * POSTs `body` (or GETs when `body` is undefined) to `url` and resolves with the parsed JSON.
 * A server that cannot be reached (or a proxy's 502, 503, 504) is a `ConnectFailure`, which the
 * caller retries or not; no reply within `timeoutMs` is a `TimeoutError`; a reply over
 * `maxReplyBytes` is an `EnvError`.
 */
export async function callJson(url: string, body: unknown, options: CallOptions): Promise<unknown> {
  let response: HttpResponse;
  try {
    response = await request({
      method: body === undefined ? 'GET' : 'POST',
      url,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      timeoutMs: options.timeoutMs,
      maxResponseBytes: options.maxReplyBytes,
    });
  } catch (error) {
    if (!HttpRequestError.isInstance(error)) throw error;
    const failed = error as HttpRequestError;
    if (failed.kind === 'timeout') {
      throw new TimeoutError(
        `${url}: no reply to ${options.what} within ${options.timeoutMs} ms (requestTimeoutMs)`,
      );
    }
    if (failed.kind === 'network') throw new ConnectFailure(networkCause(failed), false);
    if (failed.kind === 'too_large') {
      throw new EnvError(
        `${url}: the reply to ${options.what} is longer than maxMessageBytes=${options.maxReplyBytes} bytes; raise maxMessageBytes if replies this long are expected`,
      );
    }
    if (failed.kind !== 'http') throw error;
    response = failed.response!;
  }
  const text = response.text();
  if (response.status === 502 || response.status === 503 || response.status === 504) {
    // A proxy in front of a server that is not up (yet): worth another try when connecting.
    throw new ConnectFailure(`HTTP ${response.status}: ${printable(text, 200)}`, false);
  }
  if (response.status !== 200) {
    const hint =
      response.status === 404
        ? `; is ${new URL(url).pathname} a route of this dialect? Give the dialect's prefix as url (for @pilotrl/env-server: http://host:port/<dialect>)`
        : '';
    throw new EnvError(
      `${url}: the server answered ${options.what} with HTTP ${response.status}: ${printable(text, 300)}${hint}`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new EnvError(`${url}: the reply to ${options.what} is not JSON: ${printable(text, 300)}`);
  }
  if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) && 'error' in parsed) {
    const message = (parsed as { error: unknown }).error;
    throw new EnvError(
      `${url}: the server answered ${options.what} with an error: ${printable(typeof message === 'string' ? message : JSON.stringify(message), 1000)}`,
    );
  }
  return parsed;
}
