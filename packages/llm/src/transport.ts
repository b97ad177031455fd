// The HTTP side of the chat client, over @pilotrl/http-client's `request`: each attempt has its own
// timeout, runs under the limiter, and has its reply read up to `maxReplyBytes`. Attempts are
// retried on 429/5xx, network failures, timeouts and malformed 2xx replies, with jittered
// exponential backoff (Retry-After wins when sent). A request that fails for good throws
// `LlmRequestError`, whose message names the endpoint, the cause and a fix (`hintFor`), with the
// API key redacted.
import { createLimiter, createRng } from '@pilotrl/core';
import { type HttpFailure, HttpRequestError, type HttpResponse, request } from '@pilotrl/http-client';
import {
  describeEndpoint,
  errorMessageOf,
  type LlmFailureReason,
  LlmRequestError,
  redactSecret,
  snippet,
} from './errors';
import { hintFor } from './hints';
import { isRetriableStatus, type ResolvedRetryOptions } from './retry';

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
  const redact = (text: string) => redactSecret(text, settings.apiKey);
  const emit = (event: LlmEvent) => hooks.onEvent?.(event);

  const headers: Record<string, string> = { ...settings.headers, 'content-type': 'application/json' };
  if (settings.apiKey !== undefined) headers.authorization = `Bearer ${settings.apiKey}`;

  const retriable = (failure: HttpFailure): boolean => {
    switch (failure.kind) {
      case 'network':
        return true;
      case 'timeout':
        return retry.retryOnTimeout;
      case 'http':
        return isRetriableStatus(failure.status!);
      // A 2xx that is not the answer asked for is most often a reply cut off on the way (a proxy, a
      // restarting server): it is retried like a 5xx, within retry.maxRetries.
      case 'malformed':
        return retry.retryOnMalformed;
      // Unlike a reply cut short, one this long would come back as long on another try.
      case 'too_large':
      case 'aborted':
        return false;
    }
  };

  const detailOf = (failure: HttpFailure): string => {
    const response = failure.response;
    switch (failure.kind) {
      case 'http': {
        const message = response!.truncated
          ? `(a body over maxReplyBytes=${maxReplyBytes})`
          : errorMessageOf(response!.text());
        return `HTTP ${response!.status} ${response!.statusText}: ${message}`;
      }
      case 'too_large':
        return `the reply is longer than maxReplyBytes=${maxReplyBytes}`;
      case 'timeout':
        return `no complete answer within timeoutMs=${timeoutMs}`;
      default:
        return failure.detail;
    }
  };

  return {
    async send(method, path, body, signal, validate) {
      const url = `${settings.baseUrl}${path}`;
      const endpoint = `${method} ${describeEndpoint(url)}`;
      try {
        return await request({
          method,
          url,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          timeoutMs,
          maxResponseBytes: maxReplyBytes,
          signal,
          read: (response) => readJson(response, validate),
          schedule: (attempt) => limiter.run(attempt),
          retry: {
            ...retry,
            jitter: 'full',
            random,
            sleep: hooks.sleep,
            honorRetryAfter: true,
            retryOn: retriable,
            onRetry: ({ attempt, failure, delayMs }) =>
              emit({
                type: 'retry',
                endpoint,
                attempt,
                reason: failure.kind,
                ...(failure.status === undefined ? {} : { status: failure.status }),
                delayMs,
              }),
          },
        });
      } catch (error) {
        if (!HttpRequestError.isInstance(error)) throw error;
        const failed = error as HttpRequestError;
        const { attempts } = failed;
        if (failed.stop === 'aborted') {
          throw new LlmRequestError(
            { endpoint, reason: 'aborted', attempts },
            `${endpoint} was aborted by the caller while waiting to retry`,
          );
        }
        const reason = failed.kind;
        const status = failed.status === undefined ? {} : { status: failed.status };
        emit({ type: 'failure', endpoint, attempts, reason, ...status });
        const extra =
          failed.stop === 'wait_too_long'
            ? ` (the server asked to wait ${failed.serverWaitMs} ms, more than retry.maxDelayMs=${retry.maxDelayMs})`
            : '';
        throw new LlmRequestError(
          { endpoint, reason, ...status, attempts },
          redact(
            `${endpoint} failed after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${detailOf(failed)}${extra}. ${hintFor(reason, failed.status, settings.apiKeyEnv)}`,
          ),
        );
      }
    },
  };
}

/** The reply as JSON that passed `validate`; what throws here makes the attempt `malformed`. */
function readJson(response: HttpResponse, validate: BodyCheck | undefined): unknown {
  const text = response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`body is not JSON: ${snippet(text)}`);
  }
  const problem = validate?.(body);
  if (problem !== undefined) throw new Error(problem);
  return body;
}
