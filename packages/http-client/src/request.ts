// One HTTP request as the remote clients send it: each attempt with its own timeout, its response
// body read up to `maxResponseBytes`, and, when `retry` is given, tried again by `retry.retryOn`
// with backoff (Retry-After wins where `retry.honorRetryAfter`). Every way it can fail is an
// `HttpRequestError` whose `kind` says which, so each client can raise its own errors from it.
import { PilotRLError } from '@pilotrl/core';
import { parseRetryAfter } from './backoff';
import { type RetryHooks, type RetryPolicy, type RetryStop, retry } from './retry';

export interface HttpResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: Headers;
  /** The body; for an error status over `maxResponseBytes`, only as much of it as was read. */
  readonly body: Uint8Array;
  /** Whether the body was cut at `maxResponseBytes` (only an error status's is: a 2xx one that long fails). */
  readonly truncated: boolean;
  /** The body as UTF-8 text, bad bytes replaced. */
  text(): string;
}

/**
 * How an attempt failed: the connection (`network`), the time limit (`timeout`), the caller's
 * signal (`aborted`), a status outside 2xx (`http`), a 2xx body over the limit (`too_large`) or one
 * that `read` refused (`malformed`).
 */
export type HttpFailureKind = 'network' | 'timeout' | 'aborted' | 'http' | 'too_large' | 'malformed';

/** One failed attempt, as `retryOn` sees it. */
export interface HttpFailure {
  readonly kind: HttpFailureKind;
  /** What went wrong in words, without the method and URL. */
  readonly detail: string;
  /** The answer's status, for `http`, `too_large` and `malformed`. */
  readonly status?: number | undefined;
  /** The answer, for `http` and `malformed`. */
  readonly response?: HttpResponse | undefined;
  /** The network error's code (`ECONNREFUSED`, `UND_ERR_SOCKET`, ...), for `network`. */
  readonly code?: string | undefined;
  readonly cause?: unknown;
}

export interface HttpRequest<T = HttpResponse> {
  method: 'GET' | 'POST';
  url: string;
  headers?: Readonly<Record<string, string>> | undefined;
  body?: string | Uint8Array | undefined;
  /** Time limit of one attempt, until its body is read. */
  timeoutMs: number;
  /** Longest response body read; a longer 2xx body fails the attempt (`too_large`). */
  maxResponseBytes: number;
  signal?: AbortSignal | undefined;
  /** Reads a 2xx answer into the result; what it throws makes the attempt `malformed`. */
  read?: ((response: HttpResponse) => T) | undefined;
  /** Without it, one attempt. */
  retry?:
    | (RetryPolicy &
        Omit<RetryHooks, 'signal' | 'onRetry'> & {
          /** Whether a failed attempt is worth another try (`aborted` and `too_large` never are). */
          retryOn: (failure: HttpFailure) => boolean;
          /** Called before each wait, with the attempt that failed (1-based) and how. */
          onRetry?: ((event: { attempt: number; failure: HttpFailure; delayMs: number }) => void) | undefined;
          /** Wait what a retried answer's Retry-After asks (and give up when it is over maxDelayMs). */
          honorRetryAfter?: boolean | undefined;
        })
    | undefined;
  /** Runs each attempt (not the waits between them), e.g. under a concurrency limiter. */
  schedule?: (<R>(attempt: () => Promise<R>) => Promise<R>) | undefined;
}

/** A request failed, after the retries it was allowed. */
export class HttpRequestError extends PilotRLError {
  static override readonly errorName = 'HttpRequestError';
  readonly kind: HttpFailureKind;
  readonly method: string;
  readonly url: string;
  readonly detail: string;
  readonly response: HttpResponse | undefined;
  readonly status: number | undefined;
  readonly code: string | undefined;
  readonly attempts: number;
  /** Why no further attempt was made. */
  readonly stop: RetryStop;
  /** The wait the server asked for, when it was longer than the retry policy allows. */
  readonly serverWaitMs: number | undefined;

  constructor(
    failure: HttpFailure,
    context: { method: string; url: string; attempts: number; stop: RetryStop; serverWaitMs?: number },
  ) {
    const tries = `${context.attempts} attempt${context.attempts === 1 ? '' : 's'}`;
    const waited =
      context.stop === 'wait_too_long' ? ` (the server asked to wait ${context.serverWaitMs} ms)` : '';
    const aborted = context.stop === 'aborted' ? ' (aborted while waiting to retry)' : '';
    super(`${context.method} ${context.url} failed after ${tries}: ${failure.detail}${waited}${aborted}`, {
      cause: failure.cause,
    });
    this.kind = context.stop === 'aborted' ? 'aborted' : failure.kind;
    this.method = context.method;
    this.url = context.url;
    this.detail = failure.detail;
    this.response = failure.response;
    this.status = failure.status;
    this.code = failure.code;
    this.attempts = context.attempts;
    this.stop = context.stop;
    this.serverWaitMs = context.serverWaitMs;
  }
}

/** Sends `options` (retried as configured) and returns its 2xx answer, as `read` makes it. */
export async function request<T = HttpResponse>(options: HttpRequest<T>): Promise<T> {
  const { retry: policy, schedule } = options;
  const once = () => attemptOnce(options);
  const outcome = await retry<T>(() => (schedule ? schedule(once) : once()), {
    maxRetries: 0,
    baseDelayMs: 0,
    maxDelayMs: 0,
    jitter: 'none',
    ...policy,
    signal: options.signal,
    onRetry: ({ attempt, error, delayMs }) =>
      policy?.onRetry?.({ attempt, failure: error as HttpFailure, delayMs }),
    // An abort is the caller's decision; a 2xx body this long would come back as long again.
    retryOn: (error) =>
      isFailure(error) &&
      error.kind !== 'aborted' &&
      error.kind !== 'too_large' &&
      (policy?.retryOn(error) ?? false),
    serverWaitMs: (error) =>
      policy?.honorRetryAfter && isFailure(error) && error.kind === 'http'
        ? parseRetryAfter(error.response?.headers.get('retry-after') ?? null, Date.now())
        : undefined,
  });
  if (outcome.ok) return outcome.value;
  if (!isFailure(outcome.error)) throw outcome.error;
  throw new HttpRequestError(outcome.error, {
    method: options.method,
    url: options.url,
    attempts: outcome.attempts,
    stop: outcome.stop,
    ...(outcome.serverWaitMs === undefined ? {} : { serverWaitMs: outcome.serverWaitMs }),
  });
}

const FAILURE = Symbol('HttpFailure');
type ThrownFailure = HttpFailure & { [FAILURE]: true };
const fail = (failure: HttpFailure): ThrownFailure => ({ ...failure, [FAILURE]: true });
const isFailure = (value: unknown): value is ThrownFailure =>
  typeof value === 'object' && value !== null && FAILURE in value;

async function attemptOnce<T>(options: HttpRequest<T>): Promise<T> {
  const { signal, timeoutMs, maxResponseBytes } = options;
  if (signal?.aborted) throw fail({ kind: 'aborted', detail: 'aborted by the caller' });
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal;
  let response: HttpResponse;
  try {
    const answer = await fetch(options.url, {
      method: options.method,
      ...(options.headers === undefined ? {} : { headers: options.headers }),
      ...(options.body === undefined ? {} : { body: options.body }),
      signal: combined,
    });
    const read = await readBounded(answer, maxResponseBytes, !answer.ok);
    if (read === undefined) {
      throw fail({
        kind: 'too_large',
        detail: `the response body is longer than maxResponseBytes=${maxResponseBytes}`,
        status: answer.status,
      });
    }
    response = toResponse(answer, read.body, read.truncated);
  } catch (error) {
    if (isFailure(error)) throw error;
    if (signal?.aborted) throw fail({ kind: 'aborted', detail: 'aborted by the caller', cause: error });
    if (timeout.signal.aborted) {
      throw fail({ kind: 'timeout', detail: `no complete answer within ${timeoutMs} ms`, cause: error });
    }
    throw networkFailure(error);
  } finally {
    clearTimeout(timer);
  }
  if (response.status < 200 || response.status > 299) {
    throw fail({
      kind: 'http',
      detail: `HTTP ${response.status} ${response.statusText}`,
      status: response.status,
      response,
    });
  }
  if (options.read === undefined) return response as T;
  try {
    return options.read(response);
  } catch (error) {
    throw fail({
      kind: 'malformed',
      detail: error instanceof Error ? error.message : String(error),
      status: response.status,
      response,
      cause: error,
    });
  }
}

function networkFailure(error: unknown): ThrownFailure {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  const message = error instanceof Error ? error.message : String(error);
  return fail({
    kind: 'network',
    detail: code === undefined ? `network error: ${message}` : `network error ${code}`,
    code,
    cause: error,
  });
}

function toResponse(answer: Response, body: Uint8Array, truncated: boolean): HttpResponse {
  return {
    status: answer.status,
    statusText: answer.statusText,
    headers: answer.headers,
    body,
    truncated,
    text: () => new TextDecoder().decode(body),
  };
}

/**
 * The body's bytes, reading at most `maxBytes`: past them, undefined, or the bytes read so far
 * when `keepStart` (an error status's body is quoted, not used). Content-Length over the limit
 * stops the reading before it starts (unless the body is compressed, when it counts other bytes).
 */
async function readBounded(
  response: Response,
  maxBytes: number,
  keepStart: boolean,
): Promise<{ body: Uint8Array; truncated: boolean } | undefined> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  const over = (chunks: Uint8Array[]) =>
    keepStart ? { body: concat(chunks, maxBytes), truncated: true } : undefined;
  if (!response.headers.has('content-encoding') && declared > maxBytes) {
    await response.body?.cancel();
    return over([]);
  }
  if (response.body === null) return { body: new Uint8Array(0), truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { body: concat(chunks, maxBytes), truncated: false };
    chunks.push(value);
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return over(chunks);
    }
  }
}

/** The chunks joined, up to `limit` bytes. */
function concat(chunks: Uint8Array[], limit: number): Uint8Array {
  const length = Math.min(
    limit,
    chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0),
  );
  const joined = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    if (offset >= length) break;
    const part = chunk.subarray(0, length - offset);
    joined.set(part, offset);
    offset += part.byteLength;
  }
  return joined;
}
