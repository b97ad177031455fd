export {
  BodyTooLargeError,
  type ConnectionCaps,
  capConnections,
  type ParsedRequest,
  parseRequest,
  quoted,
  readBody,
  refuseUpgrade,
} from './http-io';
export {
  type GuardRefusal,
  hostName,
  LOOPBACK_HOSTS,
  MIN_TOKEN_CHARS,
  RequestGuard,
  type RequestGuardOptions,
  requestGuardOptionsSchema,
  tokenFromEnv,
} from './request-guard';
