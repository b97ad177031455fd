// The HTTP side of the Tinker client: JSON and protobuf POSTs under /api/v1, each attempt with its
// own timeout; submissions retried on connection failures, 408, 429 and 5xx (safe: SkyRL and the
// service make a (model, seq_id) submission idempotent), and futures long-polled with
// `retrieve_future` by the rules of future-rules.ts until a result, a failure or the deadline.
import { TimeoutError } from '@pilotrl/core';
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

type Attempt =
  | { ok: true; status: number; contentType: string; body: Uint8Array }
  | { ok: false; unreachable: true; detail: string }
  | { ok: false; unreachable: false; aborted: true };

function networkDetail(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (cause && typeof cause.code === 'string') return `cannot reach the server (${cause.code})`;
  return `cannot reach the server (${error instanceof Error ? error.message : String(error)})`;
}

function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function createApiClient(settings: ApiSettings): ApiClient {
  const root = settings.baseUrl.replace(/\/+$/, '');
  const baseHeaders: Record<string, string> = {};
  if (settings.apiKey !== undefined) baseHeaders['x-api-key'] = settings.apiKey;

  async function attempt(
    method: 'GET' | 'POST',
    path: string,
    body: { bytes: Uint8Array | string; contentType: string } | undefined,
    accept: string,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<Attempt> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    try {
      const response = await fetch(`${root}${path}`, {
        method,
        headers: {
          ...baseHeaders,
          accept,
          ...(body === undefined ? {} : { 'content-type': body.contentType }),
        },
        ...(body === undefined ? {} : { body: body.bytes }),
        signal: combined,
      });
      const bytes = new Uint8Array(await response.arrayBuffer());
      return {
        ok: true,
        status: response.status,
        contentType: response.headers.get('content-type') ?? '',
        body: bytes,
      };
    } catch (error) {
      if (signal?.aborted) return { ok: false, unreachable: false, aborted: true };
      if (timeout.aborted)
        return { ok: false, unreachable: true, detail: `no answer within ${timeoutMs} ms` };
      return { ok: false, unreachable: true, detail: networkDetail(error) };
    }
  }

  const abortedError = (endpoint: string, attempts: number) =>
    new TinkerRequestError(
      { endpoint, reason: 'aborted', detail: 'aborted by the caller', retryable: false, attempts },
      'The caller cancelled the request.',
    );

  async function send(
    method: 'GET' | 'POST',
    path: string,
    body: { bytes: Uint8Array | string; contentType: string } | undefined,
    signal: AbortSignal | undefined,
  ): Promise<unknown> {
    const endpoint = `${method} ${path}`;
    for (let attempts = 1; ; attempts++) {
      if (signal?.aborted) throw abortedError(endpoint, attempts - 1);
      const outcome = await attempt(
        method,
        path,
        body,
        'application/json',
        settings.requestTimeoutMs,
        signal,
      );
      if (!outcome.ok && !outcome.unreachable) throw abortedError(endpoint, attempts);
      const retryable =
        !outcome.ok || outcome.status === 408 || outcome.status === 429 || outcome.status >= 500;
      if (outcome.ok && outcome.status < 300) {
        const text = new TextDecoder().decode(outcome.body);
        try {
          return text === '' ? {} : JSON.parse(text);
        } catch {
          throw new TinkerRequestError(
            {
              endpoint,
              reason: 'malformed',
              detail: `the answer is not JSON: ${serverDetail(text)}`,
              retryable: false,
              attempts,
            },
            'Is baseUrl a Tinker API server?',
          );
        }
      }
      if (!retryable || attempts > settings.maxRetries) {
        if (!outcome.ok) {
          throw new TinkerRequestError(
            { endpoint, reason: 'unreachable', detail: outcome.detail, retryable: true, attempts },
            'Check that the server is running and that baseUrl is right; the call can be repeated.',
          );
        }
        const detail = serverDetail(new TextDecoder().decode(outcome.body));
        throw new TinkerRequestError(
          { endpoint, reason: 'http', status: outcome.status, detail, retryable, attempts },
          retryable
            ? 'The server failed or is overloaded; see its log.'
            : 'The server rejected the request (its reason is quoted).',
        );
      }
      try {
        await abortableSleep(
          Math.min(settings.maxBackoffMs, settings.baseBackoffMs * 2 ** (attempts - 1)),
          signal,
        );
      } catch {
        throw abortedError(endpoint, attempts);
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
      const outcome = await attempt(
        'POST',
        '/api/v1/retrieve_future',
        { bytes: body, contentType: 'application/json' },
        options.protobuf ? `${PROTO_CONTENT_TYPE}, application/json` : 'application/json',
        Math.min(settings.pollTimeoutMs, left),
        signal,
      );
      if (!outcome.ok && !outcome.unreachable) throw abortedError(endpoint, polls);
      let answer: PollAnswer;
      if (!outcome.ok) answer = { kind: 'unreachable', detail: outcome.detail };
      else if (outcome.status >= 300) {
        answer = { kind: 'status', status: outcome.status, body: new TextDecoder().decode(outcome.body) };
      } else {
        answer = {
          kind: 'result',
          contentType: outcome.contentType.includes(PROTO_CONTENT_TYPE) ? 'protobuf' : 'json',
          body: outcome.body,
        };
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
