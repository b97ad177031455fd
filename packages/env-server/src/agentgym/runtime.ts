// The machinery every AgentGym dialect shares: `/create` allocates an integer id (cheap: the env is
// made at the first reset), ids are checked with the original servers' messages, every call runs
// under the pool's deadline, and every problem is HTTP 200 with `{"error": "<message>"}` (the clients
// assert 200 and read `error`), including bodies that are not JSON or lack a field, which FastAPI
// would have answered 422.
// Our departure: the originals count ids up from 0, so any client can reach any other's episode by
// counting. Ours are random integers below 2^48, and a session answers only the client (address)
// that created it; to any other its id is "not valid", as an id never given out.
import { randomInt } from 'node:crypto';
import { describeIssues, PilotRLError } from '@pilotrl/core';
import { z } from 'zod';
import type { ServerMetrics } from '../metrics';
import type { ResolvedLimits } from '../options';
import { publicMessage, type ServerLog } from '../public-error';
import type { ServedEnv } from '../served-env';
import { goneReason, type Session, SessionLimitError, type SessionPool } from '../sessions';
import type { AgentGymDialect, DialectSession, ResetBody } from './dialect';

/** A problem answered as `{"error": message}`. */
export class AgentGymError extends PilotRLError {
  static override readonly errorName = 'AgentGymError';
}

const stepBody = z.object({ id: z.number().int(), action: z.string() });
const idBody = z.object({ id: z.number().int() });

export interface DialectContext {
  readonly dialect: AgentGymDialect;
  readonly served: ServedEnv;
  readonly pool: SessionPool;
  readonly metrics: ServerMetrics;
  readonly limits: ResolvedLimits;
  readonly log: ServerLog;
}

/** Ids are drawn below this (crypto.randomInt's bound): exact as JSON numbers, unguessable by counting. */
const ID_BOUND = 2 ** 48 - 1;

export class AgentGymRuntime {
  /** Sessions created so far: the originals' id, which TextCraft's `/create` plays as its task index. */
  private created = 0;
  readonly protocol: string;

  constructor(readonly context: DialectContext) {
    this.protocol = `agentgym/${context.dialect.name}`;
  }

  /**
   * Answers `method route` (route without the prefix, e.g. `/step`) for `client`; undefined for no
   * such route.
   */
  async handle(
    method: string,
    route: string,
    query: URLSearchParams,
    body: () => Promise<unknown>,
    client: string,
  ) {
    const { dialect } = this.context;
    const name = route.replace(/^\//, '');
    try {
      if (method === 'GET' && name === '') return dialect.health;
      if (method === 'POST' && name === 'create') return await this.create(client);
      if (method === 'POST' && name === 'reset')
        return await this.reset(parse(dialect.resetBody, await body(), name), client);
      if (method === 'POST' && name === 'step')
        return await this.step(parse(stepBody, await body(), name), client);
      if (method === 'POST' && name === 'close')
        return await this.close(parse(idBody, await body(), name).id, client);
      if (method === 'GET' && dialect.getRoutes.includes(name)) return await this.get(name, query, client);
      return undefined;
    } catch (error) {
      this.context.metrics.error(`agentgym_${name.slice(0, 32)}_error`);
      return { error: publicMessage(error, this.context.log, `/${dialect.name}/${name}`) };
    }
  }

  private key = (id: number) => `${this.protocol}/${id}`;

  private async create(client: string): Promise<unknown> {
    const { dialect, pool } = this.context;
    let id = randomInt(ID_BOUND);
    while (!('gone' in pool.find(this.key(id)))) id = randomInt(ID_BOUND);
    let session: Session<DialectSession>;
    try {
      session = pool.open<DialectSession>(
        this.protocol,
        this.key(id),
        {
          id,
          info: dialect.initialInfo(),
          started: false,
          done: false,
          observation: '',
          last: undefined,
        },
        client,
      );
    } catch (error) {
      if (SessionLimitError.isInstance(error)) throw new AgentGymError((error as Error).message);
      throw error;
    }
    const index = this.created;
    this.created += 1;
    if (dialect.resetsAtCreate !== undefined) {
      try {
        await this.play(session, dialect.resetsAtCreate(id, index));
      } catch (error) {
        await pool.close(session.key, 'closed');
        throw error;
      }
    }
    return dialect.createReply?.(session.state) ?? { id };
  }

  /** The open session `id` of `client`, or AgentGym's error for it (`_check_id`). */
  private check(id: number, client: string, isReset = false): Session<DialectSession> {
    const found = this.context.pool.find<DialectSession>(this.key(id));
    if (!('gone' in found) && found.client !== client) {
      this.context.metrics.error('agentgym_foreign_id');
      throw new AgentGymError(`The id ${id} is not valid.`);
    }
    if ('gone' in found) {
      if (found.gone === 'unknown') throw new AgentGymError(`The id ${id} is not valid.`);
      // Closed by its client: the original's words. Ended by the server (idle, past a deadline,
      // disconnected), which the originals never do: the same sentence with the reason.
      if (found.gone === 'closed')
        throw new AgentGymError(`The task with environment ${id} has been deleted.`);
      throw new AgentGymError(
        `The task with environment ${id} has been deleted: ${goneReason(found.gone, this.context.limits.idleTimeoutMs)}.`,
      );
    }
    if (!isReset && found.state.done && this.context.dialect.refusesAfterDone) {
      throw new AgentGymError(`The task with environment ${id} has finished.`);
    }
    return found;
  }

  private async reset(body: ResetBody, client: string): Promise<unknown> {
    this.context.dialect.refuseReset?.(body);
    return this.play(this.check(body.id, client, true), body);
  }

  private async play(session: Session<DialectSession>, body: ResetBody): Promise<unknown> {
    const { dialect, served, pool } = this.context;
    const reply = await pool.run(session, 'reset', async () => {
      session.env ??= served.createEnv(dialect.envOptions);
      const result = await session.env.reset(await dialect.resetOptions(body, served));
      session.state.started = true;
      session.state.done = result.terminated;
      session.state.last = result;
      return dialect.resetReply(session.state, body, result);
    });
    return reply;
  }

  private async step({ id, action }: { id: number; action: string }, client: string): Promise<unknown> {
    const { dialect, pool, metrics } = this.context;
    const session = this.check(id, client);
    const env = session.env;
    if (!session.state.started || env === undefined) {
      throw new AgentGymError(
        dialect.stepBeforeReset?.(id) ??
          `The environment ${id} has not been reset yet; POST /${dialect.name}/reset first.`,
      );
    }
    const reply = await pool.run(session, 'step', async () => {
      const result = await env.step(action);
      session.state.done = result.terminated;
      session.state.last = result;
      return dialect.stepReply(session.state, result, action);
    });
    metrics.step();
    return reply;
  }

  private async close(id: number, client: string): Promise<boolean> {
    this.check(id, client, true);
    return this.context.pool.close(this.key(id), 'closed');
  }

  private async get(route: string, query: URLSearchParams, client: string): Promise<unknown> {
    const { dialect, served } = this.context;
    if (dialect.idFreeRoutes?.includes(route)) return dialect.getReply?.(route, undefined, served);
    const raw = query.get('id');
    if (raw === null || !/^-?\d+$/.test(raw)) {
      throw new AgentGymError(
        `GET /${dialect.name}/${route} needs the query parameter id, an integer (?id=0)`,
      );
    }
    // As in the originals, these too are refused once the task has finished.
    const session = this.check(Number(raw), client);
    this.context.pool.touch(session);
    if (route === 'observation' && dialect.getReply === undefined) return session.state.observation;
    if (route === 'detail') return session.state.info;
    return (await dialect.getReply?.(route, session.state, served)) ?? session.state.observation;
  }
}

function parse<S extends z.ZodType>(schema: S, value: unknown, route: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new AgentGymError(`Invalid body for /${route}: ${describeIssues(parsed.error.issues).join('; ')}`);
}
