// The server's limits, validated once: how many sessions may be open, how long an idle one lives,
// how long a step may take and how large a request may be.
import { z } from 'zod';

export const envServerLimitsSchema = z.strictObject({
  /** Open sessions at most, over every protocol and env together; one more is refused clearly. */
  maxSessions: z.number().int().positive().default(1024),
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
