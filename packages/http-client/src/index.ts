export { abortableSleep, type BackoffOptions, backoffDelayMs, parseRetryAfter } from './backoff';
export {
  type HttpFailure,
  type HttpFailureKind,
  type HttpRequest,
  HttpRequestError,
  type HttpResponse,
  request,
} from './request';
export {
  type RetryHooks,
  type RetryOptions,
  type RetryOutcome,
  type RetryPolicy,
  type RetryStop,
  retry,
} from './retry';
