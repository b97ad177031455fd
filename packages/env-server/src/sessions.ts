// The sessions of every protocol in one pool: one cap over all of them and one per client, an idle
// reaper, one call at a time per session under a deadline, and a bounded memory of closed ids so that
// a late request hears why its session is gone.
import { PilotRLError, type TextEnv, TimeoutError } from '@pilotrl/core';
import type { ServerMetrics } from './metrics';
import type { ResolvedLimits } from './options';

/** The pool, or the client's share of it, is full; `open` and `max` say how full. */
export class SessionLimitError extends PilotRLError {
  static override readonly errorName = 'SessionLimitError';
  constructor(
    readonly open: number,
    readonly max: number,
    idleTimeoutMs: number,
    whose: 'server' | 'client' = 'server',
  ) {
    super(
      `${whose === 'server' ? 'The server has' : 'This client has'} ${open} of ${max} sessions open; close one you no longer need, or wait for idle ones ` +
        `to be closed (after ${idleTimeoutMs / 1000} s without a request), then try again`,
    );
  }
}

/** A second request reached a session while its first was still running. */
export class SessionBusyError extends PilotRLError {
  static override readonly errorName = 'SessionBusyError';
}

export type CloseReason = 'closed' | 'reaped' | 'timed out' | 'disconnected';

export interface Session<State> {
  readonly key: string;
  readonly protocol: string;
  /** Who opened it (the client's address): its requests alone reach the session. */
  readonly client: string;
  /** The env, made at the first reset (AgentGym's `/create` must stay cheap). */
  env: TextEnv | undefined;
  /** What the protocol keeps for this session. */
  state: State;
  lastActive: number;
  busy: boolean;
  /** Called once when the pool closes the session, e.g. to hang up its WebSocket. */
  onClose?: (reason: CloseReason) => void;
}

export class SessionPool {
  private readonly sessions = new Map<string, Session<unknown>>();
  private readonly perClient = new Map<string, number>();
  private readonly gone = new Map<string, CloseReason>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly limits: ResolvedLimits,
    private readonly metrics: ServerMetrics,
    private readonly now: () => number,
  ) {
    // Checking a few times per timeout keeps a session's lifetime within 1.25 timeouts.
    const every = Math.min(Math.max(limits.idleTimeoutMs / 4, 10), 30_000);
    this.timer = setInterval(() => void this.reapIdle(), every);
    this.timer.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Open sessions per protocol, for the metrics. */
  byProtocol(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const session of this.sessions.values())
      counts[session.protocol] = (counts[session.protocol] ?? 0) + 1;
    return counts;
  }

  /** Opens a session for `client`, or throws `SessionLimitError` when the pool or its share is full. */
  open<State>(protocol: string, key: string, state: State, client: string): Session<State> {
    if (this.sessions.size >= this.limits.maxSessions) {
      this.metrics.refused += 1;
      throw new SessionLimitError(this.sessions.size, this.limits.maxSessions, this.limits.idleTimeoutMs);
    }
    const mine = this.perClient.get(client) ?? 0;
    if (mine >= this.limits.maxSessionsPerClient) {
      this.metrics.refused += 1;
      throw new SessionLimitError(
        mine,
        this.limits.maxSessionsPerClient,
        this.limits.idleTimeoutMs,
        'client',
      );
    }
    this.perClient.set(client, mine + 1);
    const session: Session<State> = {
      key,
      protocol,
      client,
      env: undefined,
      state,
      lastActive: this.now(),
      busy: false,
    };
    this.sessions.set(key, session as Session<unknown>);
    this.metrics.created += 1;
    return session;
  }

  /** The open session `key`, or why there is none: never opened (`unknown`) or closed. */
  find<State>(key: string): Session<State> | { gone: CloseReason | 'unknown' } {
    const session = this.sessions.get(key);
    if (session !== undefined) return session as Session<State>;
    return { gone: this.gone.get(key) ?? 'unknown' };
  }

  /** Marks the session active now (a read that runs no env call). */
  touch(session: Session<unknown>): void {
    session.lastActive = this.now();
  }

  /**
   * Runs `call` on the session: refused while another call runs (`SessionBusyError`); past the
   * step deadline it fails with a `TimeoutError` and the session is closed, since its env is then
   * in an unknown state. Either way the session counts as active.
   */
  async run<State, R>(session: Session<State>, what: string, call: () => Promise<R>): Promise<R> {
    if (session.busy) {
      throw new SessionBusyError(
        `${what}: this session is still answering an earlier request; send one request at a time per session`,
      );
    }
    session.busy = true;
    session.lastActive = this.now();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(
          new TimeoutError(
            `${what} took longer than ${this.limits.stepTimeoutMs / 1000} s; the session was closed, start a new one`,
          ),
        );
      }, this.limits.stepTimeoutMs);
    });
    try {
      return await Promise.race([call(), deadline]);
    } catch (error) {
      if (TimeoutError.isInstance(error)) await this.close(session.key, 'timed out');
      throw error;
    } finally {
      clearTimeout(timer);
      session.busy = false;
      session.lastActive = this.now();
    }
  }

  /** Closes `key` and frees its env; false when it was not open. */
  async close(key: string, reason: CloseReason): Promise<boolean> {
    const session = this.sessions.get(key);
    if (session === undefined) return false;
    this.sessions.delete(key);
    const left = (this.perClient.get(session.client) ?? 1) - 1;
    if (left === 0) this.perClient.delete(session.client);
    else this.perClient.set(session.client, left);
    this.remember(key, reason);
    if (reason === 'reaped') this.metrics.reaped += 1;
    else this.metrics.closed += 1;
    session.onClose?.(reason);
    // An env that fails to close must not keep the server from freeing the slot.
    await session.env?.close?.().catch(() => undefined);
    return true;
  }

  /** Closes the sessions idle for longer than the idle timeout; returns how many. */
  async reapIdle(): Promise<number> {
    const cutoff = this.now() - this.limits.idleTimeoutMs;
    const idle = [...this.sessions.values()].filter((s) => !s.busy && s.lastActive < cutoff);
    for (const session of idle) await this.close(session.key, 'reaped');
    return idle.length;
  }

  async closeAll(): Promise<void> {
    clearInterval(this.timer);
    for (const key of [...this.sessions.keys()]) await this.close(key, 'closed');
  }

  private remember(key: string, reason: CloseReason): void {
    if (this.limits.rememberClosed === 0) return;
    this.gone.delete(key);
    this.gone.set(key, reason);
    if (this.gone.size > this.limits.rememberClosed) this.gone.delete(this.gone.keys().next().value!);
  }
}

/** Why a session is gone, in words for an error message. */
export function goneReason(reason: CloseReason, idleTimeoutMs: number): string {
  switch (reason) {
    case 'closed':
      return 'it was closed';
    case 'reaped':
      return `it was idle for more than ${idleTimeoutMs / 1000} s and was closed by the server`;
    case 'timed out':
      return 'a step ran past the step deadline and the session was closed';
    case 'disconnected':
      return 'its client disconnected';
  }
}
