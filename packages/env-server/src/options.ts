// The server's limits, validated once: how many sessions and connections may be open (in total and
// per client address), how long an idle one lives, how long a step, a request's headers and its body
// may take, and how many bytes a request or a client's unread replies may hold.
import { z } from 'zod';

export const envServerLimitsSchema = z.strictObject({
  /** Open sessions at most, over every protocol and env together; one more is refused clearly. */
  maxSessions: z.number().int().positive().default(1024),
  /** Open sessions at most for one client (its address), so one client cannot take them all. */
  maxSessionsPerClient: z.number().int().positive().default(256),
  /** Open connections (HTTP keep-alive and WebSocket) at most; one more is closed as it arrives. */
  maxConnections: z.number().int().positive().default(512),
  /** Open connections at most from one client address. */
  maxConnectionsPerClient: z.number().int().positive().default(256),
  /** A request whose headers have not all arrived by then is answered 408 and closed. */
  headersTimeoutMs: z.number().int().positive().default(10_000),
  /** A request whose body has not all arrived by then is answered 408 and closed. */
  requestTimeoutMs: z.number().int().positive().default(15_000),
  /** Bytes of replies a WebSocket client may leave unread; past them its connection is cut. */
  maxUnreadBytes: z.number().int().positive().default(8_388_608),
  /** A WebSocket that answers no ping within this long is cut, and its session closed. */
  heartbeatMs: z.number().int().positive().default(30_000),
  /**
   * A session untouched this long is closed by the reaper. AgentGym's ALFWorld, Maze and Wordle
   * clients never close theirs, so without it a trainer leaks one env per trajectory.
   */
  idleTimeoutMs: z.number().int().positive().default(900_000),
  /** A step (or reset) running longer than this fails with an error and ends its session. */
  stepTimeoutMs: z.number().int().positive().default(30_000),
  /** Bytes of one HTTP body or WebSocket message at most; larger ones get an error. */
  maxMessageBytes: z.number().int().positive().default(1_048_576),
  /** Closed session ids remembered, so a late request hears "closed" rather than "unknown". */
  rememberClosed: z.number().int().nonnegative().default(4096),
});
export type EnvServerLimits = z.input<typeof envServerLimitsSchema>;
export type ResolvedLimits = z.output<typeof envServerLimitsSchema>;
