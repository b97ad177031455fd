// What to do with each answer to `retrieve_future`, after the official SDK's rules
// (tinker 0.25 `lib/api_future_impl.py`): 408 and 5xx poll again at once (408 is SkyRL's
// "not done within the long poll"); a connection failure or 429 waits min(2^k, 30) s; a bare 400
// is polled again up to 3 times (a proxy may inject one), then it is the request's failure; 410
// means the promise is gone and the original request is submitted again; a JSON `try_again` polls
// again; `complete_metadata` polls again asking for the full payload; a JSON `error` is the
// request's failure; other 4xx fail at once. Unlike the SDK, connection failures and 5xx are
// bounded (`maxConnectionRetries`, `maxServerErrorRetries`): a dead server surfaces as a retryable
// error instead of a hang, and so does a result the server fails on every time (SkyRL 0.4.0 answers
// 500 on each poll of a sample whose logprobs it cannot serialize).

import { backoffDelayMs } from '@pilotrl/http-client';

export type PollAnswer =
  | { kind: 'result'; contentType: 'protobuf' | 'json'; body: Uint8Array }
  | { kind: 'status'; status: number; body: string }
  | { kind: 'unreachable'; detail: string };

export interface PollState {
  connectionRetries: number;
  badRequestRetries: number;
  resubmissions: number;
  /** 5xx answers in a row. */
  serverErrorRetries: number;
  /** Whether the next poll may get a metadata-only answer (`allow_metadata_only`). */
  allowMetadataOnly: boolean;
}

export const MAX_BAD_REQUEST_RETRIES = 3;

export type PollAction =
  | { kind: 'done'; contentType: 'protobuf' | 'json'; body: Uint8Array }
  | { kind: 'poll'; delayMs: number }
  | { kind: 'resubmit' }
  | { kind: 'failed'; detail: string }
  | { kind: 'unreachable'; detail: string }
  | { kind: 'rejected'; status: number; body: string };

export interface PollLimits {
  maxConnectionRetries: number;
  maxResubmissions: number;
  maxServerErrorRetries: number;
  /** Longest backoff (the SDK's is 30 s). */
  maxBackoffMs: number;
}

export function createPollState(): PollState {
  return {
    connectionRetries: 0,
    badRequestRetries: 0,
    resubmissions: 0,
    serverErrorRetries: 0,
    allowMetadataOnly: true,
  };
}

function backoffMs(state: PollState, limits: PollLimits): number {
  return backoffDelayMs(
    { baseDelayMs: 1000, maxDelayMs: limits.maxBackoffMs, jitter: 'none' },
    state.connectionRetries,
  );
}

/** Decides the next step from one poll's answer; updates `state`'s counters. */
export function nextPollAction(answer: PollAnswer, state: PollState, limits: PollLimits): PollAction {
  if (answer.kind === 'unreachable') {
    if (state.connectionRetries >= limits.maxConnectionRetries)
      return { kind: 'unreachable', detail: answer.detail };
    const delayMs = backoffMs(state, limits);
    state.connectionRetries++;
    return { kind: 'poll', delayMs };
  }
  // Any answer proves the server is there again.
  if (answer.kind === 'result') {
    state.connectionRetries = 0;
    state.serverErrorRetries = 0;
    if (answer.contentType === 'json') {
      const json = parseJsonObject(answer.body);
      if (json?.type === 'try_again') return { kind: 'poll', delayMs: 0 };
      if (json?.status === 'complete_metadata') {
        state.allowMetadataOnly = false;
        return { kind: 'poll', delayMs: 0 };
      }
      if (json !== undefined && 'error' in json) return { kind: 'failed', detail: String(json.error) };
    }
    return { kind: 'done', contentType: answer.contentType, body: answer.body };
  }
  const { status, body } = answer;
  if (status === 429) {
    const delayMs = backoffMs(state, limits);
    state.connectionRetries++;
    return { kind: 'poll', delayMs };
  }
  state.connectionRetries = 0;
  if (status === 408) {
    state.badRequestRetries = 0;
    state.serverErrorRetries = 0;
    return { kind: 'poll', delayMs: 0 };
  }
  if (status >= 500 && status < 600) {
    if (state.serverErrorRetries >= limits.maxServerErrorRetries) return { kind: 'rejected', status, body };
    state.serverErrorRetries++;
    return { kind: 'poll', delayMs: 0 };
  }
  state.serverErrorRetries = 0;
  if (status === 410) {
    if (state.resubmissions >= limits.maxResubmissions) return { kind: 'rejected', status, body };
    state.resubmissions++;
    return { kind: 'resubmit' };
  }
  if (status === 400) {
    if (state.badRequestRetries < MAX_BAD_REQUEST_RETRIES) {
      state.badRequestRetries++;
      return { kind: 'poll', delayMs: 0 };
    }
    return { kind: 'failed', detail: body };
  }
  return { kind: 'rejected', status, body };
}

function parseJsonObject(bytes: Uint8Array): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(new TextDecoder().decode(bytes));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
