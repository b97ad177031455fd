// One JSON call to an AgentGym server, with AgentGym's conventions made errors: an HTTP status
// other than 200, a body that is not JSON, and a 200 with `{"error": "..."}` (how every AgentGym
// server reports a problem) each reject with an EnvError that quotes what the server said.
import { EnvError, printable, TimeoutError } from '@pilotrl/core';
import { ConnectFailure } from '../retry';

export interface CallOptions {
  readonly timeoutMs: number;
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

function networkCause(error: unknown): string | undefined {
  if (!(error instanceof TypeError)) return undefined;
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? error.message;
}

/**
 * POSTs `body` (or GETs when `body` is undefined) to `url` and resolves with the parsed JSON.
 * A server that cannot be reached (or a proxy's 502, 503, 504) is a `ConnectFailure`, which the
 * caller retries or not; no reply within `timeoutMs` is a `TimeoutError`.
 */
export async function callJson(url: string, body: unknown, options: CallOptions): Promise<unknown> {
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, {
      method: body === undefined ? 'GET' : 'POST',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    text = await response.text();
  } catch (error) {
    if (error instanceof DOMException && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
      throw new TimeoutError(
        `${url}: no reply to ${options.what} within ${options.timeoutMs} ms (requestTimeoutMs)`,
      );
    }
    const cause = networkCause(error);
    if (cause !== undefined) {
      throw new ConnectFailure(
        UNREACHABLE.has(cause) ? cause : `${cause} (${(error as Error).message})`,
        false,
      );
    }
    throw error;
  }
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
