// The HTTP side of the Tinker client, over @pilotrl/http-client's `request`: JSON and protobuf
// POSTs under /api/v1, each attempt with its own timeout and a cap on the answer's size;
// submissions retried on connection failures, 408, 429 and 5xx (safe: SkyRL and the service make a
// (model, seq_id) submission idempotent), and futures long-polled with `retrieve_future` by the
// rules of future-rules.ts until a result, a failure or the deadline.
import { TimeoutError } from '@pilotrl/core';
import { abortableSleep, type HttpFailure, HttpRequestError, request } from '@pilotrl/http-client';
import { serverDetail, TinkerFutureError, TinkerRequestError } from './errors';
import { createPollState, nextPollAction, type PollAnswer } from './future-rules';
import { PROTO_CONTENT_TYPE } from './wire/proto-codec';

export interface ApiSettings {
  /** Server root, e.g. `http://127.0.0.1:8000` (paths are `/api/v1/...`). */
  baseUrl: string;
  /** Sent as `X-API-Key` (hosted Tinker); SkyRL needs none. */
  apiKey: string | undefined;
  /** Time limit of one HTTP attempt; a retrieve_future poll gets `pollTimeoutMs`. */
  requestTimeoutMs: number;
  /** Client-side limit of one long poll (the SDK uses 45 s). */
  pollTimeoutMs: number;
  /** Retries of a submission after the first attempt. */
  maxRetries: number;
  /** Polls after connection failures before the future is given up as unreachable. */
  maxConnectionRetries: number;
  /** Backoff before retry k is min(maxBackoffMs, baseBackoffMs·2^k). */
  baseBackoffMs: number;
  maxBackoffMs: number;
  /** Longest answer body read; a longer one fails the request (`too_large`). */
  maxResponseBytes: number;
  /** Deadline of one future, from its submission to its result. */
  futureDeadlineMs: number;
}

export type FutureResult = { contentType: 'protobuf' | 'json'; body: Uint8Array };

export interface ApiClient {
  getJson(path: string, signal?: AbortSignal): Promise<unknown>;
  postJson(path: string, body: unknown, signal?: AbortSignal): Promise<unknown>;
  postProto(path: string, body: Uint8Array, signal?: AbortSignal): Promise<unknown>;
  /**
   * Submits with `submit` (which returns the request id) and waits for its result. A 410 while
   * polling submits again (the promise expired); `what` names the request in errors.
   */
  runFuture(
    what: string,
    submit: () => Promise<string>,
    options: { protobuf: boolean; signal?: AbortSignal | undefined },
  ): Promise<FutureResult>;
}

type Body = { bytes: Uint8Array | string; contentType: string };

/** Whether a submission that failed this way may be sent again: it did not reach the server, or the server asks for it. */
function retryable(failure: HttpFailure): boolean {
  if (failure.kind === 'network' || failure.kind === 'timeout') return true;
  const status = failure.status ?? 0;
  return failure.kind === 'http' && (status === 408 || status === 429 || status >= 500);
}

/** Why the server could not be reached (an attempt limited to `timeoutMs`), for `unreachable` errors. */
function unreachableDetail(failure: HttpRequestError, timeoutMs: number): string {
  if (failure.kind === 'timeout') return `no answer within ${timeoutMs} ms`;
  const message = failure.cause instanceof Error ? failure.cause.message : failure.detail;
  return `cannot reach the server (${failure.code ?? message})`;
}

export function createApiClient(settings: ApiSettings): ApiClient {
  const root = settings.baseUrl.replace(/\/+$/, '');
  const baseHeaders: Record<string, string> = {};
  if (settings.apiKey !== undefined) baseHeaders['x-api-key'] = settings.apiKey;

  const abortedError = (endpoint: string, attempts: number) =>
    new TinkerRequestError(
      { endpoint, reason: 'aborted', detail: 'aborted by the caller', retryable: false, attempts },
      'The caller cancelled the request.',
    );

  const tooLargeError = (endpoint: string, attempts: number) =>
    new TinkerRequestError(
      {
        endpoint,
        reason: 'too_large',
        detail: `the answer is longer than maxResponseBytes=${settings.maxResponseBytes}`,
        retryable: false,
        attempts,
      },
      'Raise maxResponseBytes if answers this long are expected.',
    );

  const httpRequest = (
    method: 'GET' | 'POST',
    path: string,
    body: Body | undefined,
    accept: string,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ) => ({
    method,
    url: `${root}${path}`,
    headers: {
      ...baseHeaders,
      accept,
      ...(body === undefined ? {} : { 'content-type': body.contentType }),
    },
    body: body?.bytes,
    timeoutMs,
    maxResponseBytes: settings.maxResponseBytes,
    signal,
  });

  async function send(
    method: 'GET' | 'POST',
    path: string,
    body: Body | undefined,
    signal: AbortSignal | undefined,
  ): Promise<unknown> {
    const endpoint = `${method} ${path}`;
    if (signal?.aborted) throw abortedError(endpoint, 0);
    try {
      return await request({
        ...httpRequest(method, path, body, 'application/json', settings.requestTimeoutMs, signal),
        read: (response) => {
          const text = response.text();
          return text === '' ? {} : JSON.parse(text);
        },
        retry: {
          maxRetries: settings.maxRetries,
          baseDelayMs: settings.baseBackoffMs,
          maxDelayMs: settings.maxBackoffMs,
          jitter: 'none',
          retryOn: retryable,
        },
      });
    } catch (error) {
      if (!HttpRequestError.isInstance(error)) throw error;
      const failed = error as HttpRequestError;
      const { attempts } = failed;
      switch (failed.kind) {
        case 'aborted':
          throw abortedError(endpoint, attempts);
        case 'too_large':
          throw tooLargeError(endpoint, attempts);
        case 'malformed':
          throw new TinkerRequestError(
            {
              endpoint,
              reason: 'malformed',
              detail: `the answer is not JSON: ${serverDetail(failed.response!.text())}`,
              retryable: false,
              attempts,
            },
            'Is baseUrl a Tinker API server?',
          );
        case 'network':
        case 'timeout':
          throw new TinkerRequestError(
            {
              endpoint,
              reason: 'unreachable',
              detail: unreachableDetail(failed, settings.requestTimeoutMs),
              retryable: true,
              attempts,
            },
            'Check that the server is running and that baseUrl is right; the call can be repeated.',
          );
        case 'http': {
          const again = retryable(failed);
          throw new TinkerRequestError(
            {
              endpoint,
              reason: 'http',
              status: failed.status,
              detail: serverDetail(failed.response!.text()),
              retryable: again,
              attempts,
            },
            again
              ? 'The server failed or is overloaded; see its log.'
              : 'The server rejected the request (its reason is quoted).',
          );
        }
      }
    }
  }

  async function runFuture(
    what: string,
    submit: () => Promise<string>,
    options: { protobuf: boolean; signal?: AbortSignal | undefined },
  ): Promise<FutureResult> {
    const { signal } = options;
    const deadline = Date.now() + settings.futureDeadlineMs;
    const endpoint = 'POST /api/v1/retrieve_future';
    let requestId = await submit();
    const state = createPollState();
    const limits = {
      maxConnectionRetries: settings.maxConnectionRetries,
      maxResubmissions: settings.maxRetries,
      maxServerErrorRetries: settings.maxRetries,
      maxBackoffMs: settings.maxBackoffMs,
    };
    for (let polls = 1; ; polls++) {
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new TimeoutError(
          `${what} (request ${requestId}) did not finish within futureDeadlineMs=${settings.futureDeadlineMs}; ` +
            'the server may be stuck or overloaded. Raise futureDeadlineMs for long requests.',
        );
      }
      if (signal?.aborted) throw abortedError(endpoint, polls - 1);
      const body = JSON.stringify({ request_id: requestId, allow_metadata_only: state.allowMetadataOnly });
      const pollTimeoutMs = Math.min(settings.pollTimeoutMs, left);
      let answer: PollAnswer;
      try {
        const response = await request(
          httpRequest(
            'POST',
            '/api/v1/retrieve_future',
            { bytes: body, contentType: 'application/json' },
            options.protobuf ? `${PROTO_CONTENT_TYPE}, application/json` : 'application/json',
            pollTimeoutMs,
            signal,
          ),
        );
        answer = {
          kind: 'result',
          contentType: (response.headers.get('content-type') ?? '').includes(PROTO_CONTENT_TYPE)
            ? 'protobuf'
            : 'json',
          body: response.body,
        };
      } catch (error) {
        if (!HttpRequestError.isInstance(error)) throw error;
        const failed = error as HttpRequestError;
        if (failed.kind === 'aborted') throw abortedError(endpoint, polls);
        if (failed.kind === 'too_large') throw tooLargeError(endpoint, polls);
        answer =
          failed.kind === 'http'
            ? { kind: 'status', status: failed.status!, body: failed.response!.text() }
            : { kind: 'unreachable', detail: unreachableDetail(failed, pollTimeoutMs) };
      }
      const action = nextPollAction(answer, state, limits);
      switch (action.kind) {
        case 'done':
          return { contentType: action.contentType, body: action.body };
        case 'poll':
          if (action.delayMs > 0) {
            try {
              await abortableSleep(Math.min(action.delayMs, Math.max(0, deadline - Date.now())), signal);
            } catch {
              throw abortedError(endpoint, polls);
            }
          }
          break;
        case 'resubmit':
          requestId = await submit();
          break;
        case 'failed':
          throw new TinkerFutureError(requestId, what, serverDetail(action.detail));
        case 'unreachable':
          throw new TinkerRequestError(
            {
              endpoint,
              reason: 'unreachable',
              detail: `${what} (request ${requestId}): ${action.detail}`,
              retryable: true,
              attempts: polls,
            },
            'The server went away while the request was running; restart it and repeat the call (a new client may be needed if its state was lost).',
          );
        case 'rejected':
          throw new TinkerRequestError(
            {
              endpoint,
              reason: 'http',
              status: action.status,
              detail: `${what} (request ${requestId}): ${serverDetail(action.body)}`,
              retryable: action.status >= 500,
              attempts: polls,
            },
            action.status === 404
              ? 'The server does not know this request: it may have restarted without its database.'
              : 'The server rejected the request (its reason is quoted).',
          );
      }
    }
  }

  return {
    getJson: (path, signal) => send('GET', path, undefined, signal),
    postJson: (path, body, signal) =>
      send('POST', path, { bytes: JSON.stringify(body), contentType: 'application/json' }, signal),
    postProto: (path, body, signal) =>
      send('POST', path, { bytes: body, contentType: PROTO_CONTENT_TYPE }, signal),
    runFuture,
  };
}
