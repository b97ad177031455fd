// What a remote env keeps of its episode on this side, whatever the protocol: a step before any
// reset or after the episode was lost is an EnvError; a step after the episode ended gets the
// episode-over answer without asking the server; the client's own step limit; and the rules that
// fill in what a server's reply leaves out (won, valid).
import { EnvError, EPISODE_OVER_OBSERVATION, type StepResult, TimeoutError } from '@pilotrl/core';

/** One reply of a server, in the protocol-free terms a StepResult is built from. */
export interface RemoteStep {
  readonly text: string;
  /** Undefined when the server does not list admissible actions. */
  readonly admissibleActions: readonly string[] | undefined;
  readonly reward: number;
  /** The episode is over on the server (ended or cut). */
  readonly done: boolean;
  readonly truncated?: boolean | undefined;
  readonly won?: boolean | undefined;
  readonly valid?: boolean | undefined;
  readonly task?: string | undefined;
  readonly taskId?: string | undefined;
  /** The reply's other fields, kept as `info.server`. */
  readonly server: Record<string, unknown>;
}

export class RemoteEpisode {
  private last: StepResult | undefined;
  private steps = 0;
  /** Why the episode cannot go on (the connection dropped, a reply timed out); set until the next reset. */
  private lostBecause: string | undefined;

  constructor(
    private readonly envId: string,
    private readonly maxSteps: number | undefined,
  ) {}

  /** The first result of a new episode. */
  begin(reply: RemoteStep): StepResult {
    this.steps = 0;
    this.lostBecause = undefined;
    this.last = this.result(reply, undefined);
    return this.last;
  }

  /**
   * Before a step: throws when there is no episode to step; returns the episode-over answer when
   * the episode ended (the server is not asked); undefined when the step should go to the server.
   */
  check(): StepResult | undefined {
    if (this.lostBecause !== undefined) throw this.lostError(this.lostBecause);
    const last = this.last;
    if (last === undefined) {
      throw new EnvError(`${this.envId}: step() was called before reset(); call reset({ seed }) first.`);
    }
    if (!last.terminated && !last.truncated) return undefined;
    return {
      ...last,
      observation: EPISODE_OVER_OBSERVATION,
      admissibleActions: [],
      reward: 0,
      info: { ...last.info, valid: false },
    };
  }

  /** The result of a step the server answered. */
  advance(action: string, reply: RemoteStep): StepResult {
    this.steps += 1;
    this.last = this.result(reply, action);
    return this.last;
  }

  /** The episode cannot go on; `because` says why, in the error every step throws until a reset. */
  lose(because: string): void {
    if (this.last !== undefined) this.lostBecause = because;
  }

  /** Loses the episode and returns the error to throw: a TimeoutError when `cause` is one. */
  lost(because: string, cause: unknown): Error {
    this.lose(because);
    return this.lostError(because, cause);
  }

  private lostError(because: string, cause?: unknown): Error {
    const message = `${this.envId}: the episode is lost: ${because}; call reset() to start a new one (it reconnects)`;
    return TimeoutError.isInstance(cause)
      ? new TimeoutError(message, { cause })
      : new EnvError(message, { cause });
  }

  private result(reply: RemoteStep, action: string | undefined): StepResult {
    const cutByServer = reply.done && reply.truncated === true;
    const terminated = reply.done && !cutByServer;
    const truncated =
      cutByServer || (!terminated && this.maxSteps !== undefined && this.steps >= this.maxSteps);
    const won = reply.won ?? (terminated && reply.reward > 0);
    const previous = this.last?.admissibleActions;
    const valid =
      reply.valid ??
      (action === undefined || previous === undefined || previous.length === 0 || previous.includes(action));
    return {
      observation: reply.text,
      admissibleActions: terminated || truncated ? [] : [...(reply.admissibleActions ?? [])],
      reward: reply.reward,
      terminated,
      truncated,
      info: {
        won,
        valid,
        ...(reply.task === undefined ? {} : { task: reply.task }),
        ...(reply.taskId === undefined ? {} : { taskId: reply.taskId }),
        server: reply.server,
      },
    };
  }
}

/**
 * Runs one call of an env at a time: a second call while one waits for the server is refused (it
 * would take the first one's reply, or play on a session in an unknown state).
 */
export function oneCallAtATime(envId: string) {
  let busy = false;
  return async <T>(what: string, run: () => Promise<T>): Promise<T> => {
    if (busy)
      throw new EnvError(`${envId}: ${what} was called while another call is in flight; await each call`);
    busy = true;
    try {
      return await run();
    } finally {
      busy = false;
    }
  };
}
