// The HTTP side of the chat client: each attempt is one request with its own timeout, run under the
// limiter, with its reply read up to `maxReplyBytes`. Attempts are retried on 429/5xx, network
// failures, timeouts and malformed 2xx replies, with jittered exponential backoff (Retry-After wins
// when sent). A request that fails for good throws `LlmRequestError`, whose message names the
// endpoint, the cause and a fix (`hintFor`), with the API key redacted.
import { createLimiter, createRng } from '@pilotrl/core';
import {
  describeEndpoint,
  errorMessageOf,
  type LlmFailureReason,
  LlmRequestError,
  redactSecret,
  snippet,
} from './errors';
import { hintFor } from './hints';
import {
  abortableSleep,
  backoffDelayMs,
  isRetriableStatus,
  parseRetryAfter,
  type ResolvedRetryOptions,
} from './retry';

/** What happened on the wire, for logs and metrics. Never contains the API key. */
export type LlmEvent =
  | {
      type: 'retry';
      endpoint: string;
      attempt: number;
      reason: LlmFailureReason;
      status?: number;
      delayMs: number;
    }
  | { type: 'failure'; endpoint: string; attempts: number; reason: LlmFailureReason; status?: number }
  /** A result's token ids were dropped for re-tokenization drift (`onTokenDrift: 'drop'`). */
  | { type: 'token_drift'; endpoint: string; kind: 'ids' | 'count' | 'text'; detail: string };

/** Why a 2xx body is not the answer asked for, or undefined when it is. */
export type BodyCheck = (body: unknown) => string | undefined;

export interface TransportSettings {
  /** The API root without a trailing slash; request paths are appended to it. */
  baseUrl: string;
  /** Extra headers of every request. */
  headers: Readonly<Record<string, string>>;
  /** Sent as `Authorization: Bearer`, and redacted from every message. */
  apiKey: string | undefined;
  /** Named in the hint of an authentication failure. */
  apiKeyEnv?: string | undefined;
  timeoutMs: number;
  maxReplyBytes: number;
  maxConcurrency: number;
  retry: ResolvedRetryOptions;
  jitterSeed: number;
}

export interface Transport {
  /**
   * Sends one request (retried as configured) and returns its JSON reply, which passed `validate`.
   * `body`, when given, is sent as JSON.
   */
  send(
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    signal?: AbortSignal,
    validate?: BodyCheck,
  ): Promise<unknown>;
}

type AttemptOutcome =
  | { ok: true; body: unknown }
  | {
      ok: false;
      reason: LlmFailureReason;
      status?: number;
      retriable: boolean;
      retryAfterMs?: number;
      detail: string;
    };

export function createTransport(
  settings: TransportSettings,
  hooks: {
    onEvent?: ((event: LlmEvent) => void) | undefined;
    sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
  } = {},
): Transport {
  const { retry, timeoutMs, maxReplyBytes } = settings;
  const limiter = createLimiter(settings.maxConcurrency);
  const random = createRng(settings.jitterSeed).float;
  const sleep = hooks.sleep ?? abortableSleep;
  const redact = (text: string) => redactSecret(text, settings.apiKey);
  const emit = (event: LlmEvent) => hooks.onEvent?.(event);

  const headers: Record<string, string> = { ...settings.headers, 'content-type': 'application/json' };
  if (settings.apiKey !== undefined) headers.authorization = `Bearer ${settings.apiKey}`;

  // A 2xx that is not the answer asked for is most often a reply cut off on the way (a proxy, a
  // restarting server): it is retried like a 5xx, within retry.maxRetries.
  const malformed = (status: number, detail: string): AttemptOutcome => ({
    ok: false,
    reason: 'malformed',
    status,
    retriable: retry.retryOnMalformed,
    detail,
  });

  async function attempt(
    url: string,
    init: RequestInit,
    signal: AbortSignal | undefined,
    validate: BodyCheck | undefined,
  ): Promise<AttemptOutcome> {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal;
    try {
      const response = await fetch(url, { ...init, headers, signal: combined });
      const text = await readCapped(response, maxReplyBytes);
      if (!response.ok) {
        const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), Date.now());
        const message =
          text === undefined ? `(a body over maxReplyBytes=${maxReplyBytes})` : errorMessageOf(text);
        return {
          ok: false,
          reason: 'http',
          status: response.status,
          retriable: isRetriableStatus(response.status),
          ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
          detail: `HTTP ${response.status} ${response.statusText}: ${message}`,
        };
      }
      // Unlike a reply cut short, one this long would come back as long on another try.
      if (text === undefined) {
        return {
          ok: false,
          reason: 'too_large',
          status: response.status,
          retriable: false,
          detail: `the reply is longer than maxReplyBytes=${maxReplyBytes}`,
        };
      }
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return malformed(response.status, `body is not JSON: ${snippet(text)}`);
      }
      const problem = validate?.(body);
      return problem === undefined ? { ok: true, body } : malformed(response.status, problem);
    } catch (error) {
      if (signal?.aborted)
        return { ok: false, reason: 'aborted', retriable: false, detail: 'aborted by the caller' };
      if (timeout.signal.aborted) {
        return {
          ok: false,
          reason: 'timeout',
          retriable: retry.retryOnTimeout,
          detail: `no complete answer within timeoutMs=${timeoutMs}`,
        };
      }
      return { ok: false, reason: 'network', retriable: true, detail: networkDetail(error) };
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    async send(method, path, body, signal, validate) {
      const url = `${settings.baseUrl}${path}`;
      const endpoint = `${method} ${describeEndpoint(url)}`;
      const init: RequestInit = body === undefined ? { method } : { method, body: JSON.stringify(body) };
      for (let attemptNumber = 1; ; attemptNumber++) {
        const outcome: AttemptOutcome = signal?.aborted
          ? { ok: false, reason: 'aborted', retriable: false, detail: 'aborted by the caller' }
          : await limiter.run(() => attempt(url, init, signal, validate));
        if (outcome.ok) return outcome.body;
        const fail = (extra = '') => {
          emit({
            type: 'failure',
            endpoint,
            attempts: attemptNumber,
            reason: outcome.reason,
            ...(outcome.status === undefined ? {} : { status: outcome.status }),
          });
          return new LlmRequestError(
            {
              endpoint,
              reason: outcome.reason,
              ...(outcome.status === undefined ? {} : { status: outcome.status }),
              attempts: attemptNumber,
            },
            redact(
              `${endpoint} failed after ${attemptNumber} attempt${attemptNumber === 1 ? '' : 's'}: ${outcome.detail}${extra}. ${hintFor(outcome.reason, outcome.status, settings.apiKeyEnv)}`,
            ),
          );
        };
        if (!outcome.retriable || attemptNumber > retry.maxRetries) throw fail();
        if (outcome.retryAfterMs !== undefined && outcome.retryAfterMs > retry.maxDelayMs) {
          throw fail(
            ` (the server asked to wait ${outcome.retryAfterMs} ms, more than retry.maxDelayMs=${retry.maxDelayMs})`,
          );
        }
        const delayMs = outcome.retryAfterMs ?? backoffDelayMs(retry, attemptNumber - 1, random);
        emit({
          type: 'retry',
          endpoint,
          attempt: attemptNumber,
          reason: outcome.reason,
          ...(outcome.status === undefined ? {} : { status: outcome.status }),
          delayMs,
        });
        try {
          await sleep(delayMs, signal);
        } catch {
          throw new LlmRequestError(
            { endpoint, reason: 'aborted', attempts: attemptNumber },
            `${endpoint} was aborted by the caller while waiting to retry`,
          );
        }
      }
    },
  };
}

/**
 * The reply body as text (UTF-8, bad bytes replaced, as `Response.text()` reads it), or undefined
 * when it is longer than `maxBytes`: reading stops there, or before it starts when Content-Length
 * says so (unless the body is compressed, when that counts other bytes).
 */
async function readCapped(response: Response, maxBytes: number): Promise<string | undefined> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (!response.headers.has('content-encoding') && declared > maxBytes) {
    await response.body?.cancel();
    return undefined;
  }
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return undefined;
    }
    text += decoder.decode(value, { stream: true });
  }
}

function networkDetail(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (cause && typeof cause.code === 'string') return `network error ${cause.code}`;
  return `network error: ${error instanceof Error ? error.message : String(error)}`;
}
