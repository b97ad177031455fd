// Errors of the Tinker client. Core's classes cover what they fit (InvalidArgumentError for bad
// input, TimeoutError for a future past its deadline, CheckpointError for a broken manifest); the
// ones here carry what a caller decides on: whether a retry can help, and the server's own words.
import { PilotRLError, printable } from '@pilotrl/core';

/**
 * Why a request failed: the server could not be reached (refused, reset, no answer: it may be
 * down or restarting), it answered an HTTP error, its answer was not what the API defines or was
 * longer than `maxResponseBytes`, or the caller aborted.
 */
export type TinkerFailureReason = 'unreachable' | 'http' | 'malformed' | 'too_large' | 'aborted';

/** A request to the Tinker API failed, after the retries it was allowed. */
export class TinkerRequestError extends PilotRLError {
  static override readonly errorName = 'TinkerRequestError';
  readonly endpoint: string;
  readonly reason: TinkerFailureReason;
  readonly status: number | undefined;
  /** The server's `detail` (FastAPI) or body start, quoted on one line. */
  readonly detail: string;
  /** Whether the same call may succeed later (server down, 5xx, 429), as opposed to a rejected request. */
  readonly retryable: boolean;
  readonly attempts: number;

  constructor(
    details: {
      endpoint: string;
      reason: TinkerFailureReason;
      status?: number | undefined;
      detail: string;
      retryable: boolean;
      attempts: number;
    },
    hint: string,
  ) {
    const status = details.status === undefined ? '' : ` HTTP ${details.status}`;
    super(
      `${details.endpoint} failed after ${details.attempts} attempt${details.attempts === 1 ? '' : 's'}:${status} ${details.detail}. ${hint}`,
    );
    this.endpoint = details.endpoint;
    this.reason = details.reason;
    this.status = details.status;
    this.detail = details.detail;
    this.retryable = details.retryable;
    this.attempts = details.attempts;
  }
}

/** The server ran a request and it failed there (retrieve_future answered with the error). */
export class TinkerFutureError extends PilotRLError {
  static override readonly errorName = 'TinkerFutureError';
  readonly requestId: string;
  readonly detail: string;

  constructor(requestId: string, what: string, detail: string) {
    super(`${what} (request ${requestId}) failed on the server: ${detail}`);
    this.requestId = requestId;
    this.detail = detail;
  }
}

/** A sampler pinned to older weights was asked to generate after the trainer moved on. */
export class StaleSamplerError extends PilotRLError {
  static override readonly errorName = 'StaleSamplerError';
  readonly samplerVersion: number;
  readonly policyVersion: number;

  constructor(samplerVersion: number, policyVersion: number, maxStaleness: number) {
    super(
      `The sampler holds the weights of version ${samplerVersion} but the policy is at version ${policyVersion} ` +
        `(more than maxStaleness=${maxStaleness} behind). Take a new sampler() for on-policy samples, or raise maxStaleness.`,
    );
    this.samplerVersion = samplerVersion;
    this.policyVersion = policyVersion;
  }
}

/** The local tokenizer does not belong to the server's model. */
export class TokenizerMismatchError extends PilotRLError {
  static override readonly errorName = 'TokenizerMismatchError';
}

/** The `detail` of a FastAPI error body (a string, or a list of validation problems), else the body start. */
export function serverDetail(body: string): string {
  try {
    const parsed = JSON.parse(body) as { detail?: unknown };
    const detail = parsed.detail;
    if (typeof detail === 'string') return printable(detail, 500);
    if (Array.isArray(detail)) {
      return printable(
        detail
          .map(
            (issue: { loc?: unknown[]; msg?: unknown }) =>
              `${Array.isArray(issue.loc) ? issue.loc.join('.') : '?'}: ${String(issue.msg)}`,
          )
          .join('; '),
        500,
      );
    }
  } catch {
    // Not JSON: quote the start of the body below.
  }
  return printable(body.replace(/\s+/g, ' ').trim(), 300);
}
