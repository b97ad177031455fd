// The bench's load generator: N concurrent sessions playing ALFWorld episodes (random admissible
// commands, a reset when an episode ends) over OpenEnv's WebSocket `/ws` (one connection per session)
// or over AgentGym's ALFWorld HTTP dialect (create / reset / step on keep-alive connections), for a
// wall-clock window or a step budget. Each step's latency is the time from sending the request to
// parsing its reply, by performance.now(). It is a client only: the server runs wherever `baseUrl`
// points (bench/speed.ts starts ours and the Python reference as processes of their own).
import { Agent, request } from 'node:http';
import { createRng, type Rng } from '@pilotrl/core';
import WebSocket from 'ws';

export type LoadProtocol = 'ws' | 'http';

/** A task both sides can play: its id (OpenEnv reset `task_id`) and AgentGym's game number. */
export interface LoadTask {
  taskId: string;
  game: number;
}

export interface LoadOptions {
  protocol: LoadProtocol;
  /** The server, e.g. `http://127.0.0.1:8000`; OpenEnv at `/ws`, AgentGym's dialect at `/alfworld`. */
  baseUrl: string;
  sessions: number;
  tasks: readonly LoadTask[];
  /** Length of the measured window (after every session has connected and reset once). */
  durationMs?: number;
  /** Or a budget of steps over all sessions; the run stops at whichever comes first. */
  steps?: number;
  /** The client resets after this many steps without `done` (ALFWorld's 50; AgentGym's dialect has no limit). */
  episodeSteps?: number;
  /** Seed of the commands drawn (each session draws from `createRng(`${seed}/${session}`)`). */
  seed?: string;
  /** A request not answered within this fails the run. */
  requestTimeoutMs?: number;
  /** Called when the window starts (bench/speed.ts reads the server's CPU time there). */
  onWindowStart?: () => void;
}

export interface LoadResult {
  protocol: LoadProtocol;
  sessions: number;
  /** Steps answered in the window. */
  steps: number;
  /** Resets in the window (episodes ended by a win, the server's step limit or `episodeSteps`). */
  resets: number;
  wins: number;
  /** Replies that were errors (the session then resets). */
  errors: number;
  /** HTTP requests sent again after the server had closed their idle keep-alive socket in the window. */
  resent: number;
  /** The window: from the first step to the last reply, in seconds. */
  seconds: number;
  stepsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  resetP50Ms: number;
  /** Connecting and the first reset of every session, before the window, in seconds. */
  setupSeconds: number;
  /** This process's CPU time over the window, per second of it (1 = one core busy). */
  clientCpu: number;
}

interface Reply {
  admissible: readonly string[];
  done: boolean;
  won: boolean;
  error?: string;
}

interface SessionClient {
  reset(task: LoadTask): Promise<Reply>;
  step(action: string): Promise<Reply>;
  close(): Promise<void>;
}

const withTimeout = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: no reply within ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });

interface OpenEnvReply {
  type: string;
  data: {
    observation?: { admissible_actions?: string[]; won?: boolean };
    done?: boolean;
    message?: string;
  };
}

/** OpenEnv's WebSocket: one connection, one request in flight. */
async function openEnvSession(baseUrl: string, timeoutMs: number): Promise<SessionClient> {
  const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/ws`, { perMessageDeflate: false });
  let pending: ((reply: OpenEnvReply) => void) | undefined;
  let failure: Error | undefined;
  socket.on('message', (data) => {
    const resolve = pending;
    pending = undefined;
    resolve?.(JSON.parse(String(data)) as OpenEnvReply);
  });
  socket.on('close', () => {
    failure ??= new Error('the server closed the WebSocket');
  });
  await withTimeout(
    new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    }),
    timeoutMs,
    'WebSocket connect',
  );
  socket.on('error', (error) => {
    failure ??= error;
  });
  const ask = async (message: unknown): Promise<Reply> => {
    if (failure !== undefined) throw failure;
    const reply = await withTimeout(
      new Promise<OpenEnvReply>((resolve) => {
        pending = resolve;
        socket.send(JSON.stringify(message));
      }),
      timeoutMs,
      'OpenEnv reply',
    );
    if (reply.type !== 'observation')
      return { admissible: [], done: true, won: false, error: reply.data.message ?? reply.type };
    return {
      admissible: reply.data.observation?.admissible_actions ?? [],
      done: reply.data.done === true,
      won: reply.data.observation?.won === true,
    };
  };
  return {
    reset: (task) => ask({ type: 'reset', data: { task_id: task.taskId } }),
    step: (action) => ask({ type: 'step', data: { action } }),
    async close() {
      if (socket.readyState === socket.CLOSED) return;
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      if (socket.readyState === socket.OPEN) socket.send(JSON.stringify({ type: 'close', data: {} }));
      socket.close();
      await withTimeout(closed, timeoutMs, 'WebSocket close').catch(() => socket.terminate());
    },
  };
}

/**
 * POSTs JSON on a keep-alive agent and parses the reply. A request that meets ECONNRESET on a reused
 * socket is sent again on a fresh one, as Node's docs advise (the server closed the idle socket before
 * reading it: Node's server drops a keep-alive socket whose next request it has not read within its
 * `keepAliveTimeout`, 5 s, which happens when its event loop is busy long enough); `onRetry` counts them.
 */
function postJson(
  agent: Agent,
  url: URL,
  body: unknown,
  timeoutMs: number,
  onRetry: () => void,
): Promise<unknown> {
  const payload = JSON.stringify(body);
  const attempt = (retries: number): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const req = request(
        url,
        {
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
          timeout: timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            try {
              resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
            } catch (error) {
              reject(error);
            }
          });
          res.on('error', reject);
        },
      );
      req.on('timeout', () =>
        req.destroy(new Error(`POST ${url.pathname}: no reply within ${timeoutMs} ms`)),
      );
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (req.reusedSocket && error.code === 'ECONNRESET' && retries > 0) {
          onRetry();
          resolve(attempt(retries - 1));
        } else reject(error);
      });
      req.end(payload);
    });
  return attempt(3);
}

interface AgentGymReply {
  error?: string;
  id?: number;
  available_actions?: string[];
  done?: boolean;
  reward?: number;
}

/** AgentGym's ALFWorld dialect: `/alfworld/create`, `/reset {id, game, world_type}`, `/step {id, action}`, `/close {id}`. */
async function agentGymSession(
  baseUrl: string,
  agent: Agent,
  timeoutMs: number,
  onRetry: () => void,
): Promise<SessionClient> {
  const at = (route: string) => new URL(`${baseUrl}/alfworld/${route}`);
  const post = (route: string, body: unknown) => postJson(agent, at(route), body, timeoutMs, onRetry);
  const created = (await post('create', {})) as AgentGymReply;
  if (typeof created.id !== 'number') throw new Error(`create failed: ${JSON.stringify(created)}`);
  const id = created.id;
  const reply = (raw: unknown): Reply => {
    const body = raw as AgentGymReply;
    if (body.error !== undefined) return { admissible: [], done: true, won: false, error: body.error };
    return { admissible: body.available_actions ?? [], done: body.done === true, won: body.reward === 1 };
  };
  return {
    reset: async (task) => reply(await post('reset', { id, game: task.game, world_type: 'Text' })),
    step: async (action) => reply(await post('step', { id, action })),
    async close() {
      await post('close', { id });
    },
  };
}

function percentile(sorted: Float64Array, fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}

/** Runs the load and measures it; throws when a session cannot connect or a reply times out. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const {
    protocol,
    baseUrl,
    sessions,
    tasks,
    durationMs = 10_000,
    steps: stepBudget = Number.POSITIVE_INFINITY,
    episodeSteps = 50,
    seed = 'env-server-bench',
    requestTimeoutMs = 600_000,
    onWindowStart,
  } = options;
  if (tasks.length === 0) throw new Error('runLoad: give at least one task');
  const agent = new Agent({ keepAlive: true, maxSockets: sessions });
  const stepLatencies: number[] = [];
  const resetLatencies: number[] = [];
  let steps = 0;
  let resets = 0;
  let wins = 0;
  let errors = 0;
  let resent = 0;

  // Setup: connect every session and play its first reset, all at once, outside the window.
  const setupStart = performance.now();
  const players = await Promise.all(
    Array.from({ length: sessions }, async (_, index) => {
      const client =
        protocol === 'ws'
          ? await openEnvSession(baseUrl, requestTimeoutMs)
          : await agentGymSession(baseUrl, agent, requestTimeoutMs, () => {
              resent += 1;
            });
      const first = await client.reset(tasks[index % tasks.length]!);
      if (first.error !== undefined) throw new Error(`session ${index}: reset failed: ${first.error}`);
      return { index, client, reply: first, rng: createRng(`${seed}/${index}`) as Rng };
    }),
  );
  const setupSeconds = (performance.now() - setupStart) / 1000;

  const resentInSetup = resent;
  onWindowStart?.();
  const start = performance.now();
  const deadline = start + durationMs;
  const cpuStart = process.cpuUsage();
  let lastReply = start;
  await Promise.all(
    players.map(async (player) => {
      let episode = 0;
      let episodeStep = 0;
      while (performance.now() < deadline && steps < stepBudget) {
        if (player.reply.done || player.reply.admissible.length === 0 || episodeStep >= episodeSteps) {
          episode += 1;
          episodeStep = 0;
          const task = tasks[(player.index + episode) % tasks.length]!;
          const sent = performance.now();
          player.reply = await player.client.reset(task);
          lastReply = performance.now();
          resetLatencies.push(lastReply - sent);
          resets += 1;
          if (player.reply.error !== undefined) throw new Error(`reset failed: ${player.reply.error}`);
          continue;
        }
        const action = player.rng.pick(player.reply.admissible);
        steps += 1;
        const sent = performance.now();
        player.reply = await player.client.step(action);
        lastReply = performance.now();
        stepLatencies.push(lastReply - sent);
        episodeStep += 1;
        if (player.reply.error !== undefined) errors += 1;
        else if (player.reply.won) wins += 1;
      }
    }),
  );
  const seconds = (lastReply - start) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  await Promise.all(players.map((player) => player.client.close().catch(() => undefined)));
  agent.destroy();

  const sortedSteps = Float64Array.from(stepLatencies).sort();
  const sortedResets = Float64Array.from(resetLatencies).sort();
  return {
    protocol,
    sessions,
    steps: stepLatencies.length,
    resets,
    wins,
    errors,
    resent: resent - resentInSetup,
    seconds,
    stepsPerSecond: stepLatencies.length / seconds,
    p50Ms: percentile(sortedSteps, 0.5),
    p99Ms: percentile(sortedSteps, 0.99),
    resetP50Ms: percentile(sortedResets, 0.5),
    setupSeconds,
    clientCpu: (cpu.user + cpu.system) / 1e6 / seconds,
  };
}

/**
 * One episode's first `steps` replies over OpenEnv's WebSocket, as `admissible|...|won` lines, with
 * the same draws as `runLoad`'s session 0: bench/speed.ts compares ours with the reference's.
 */
export async function openEnvTranscript(
  baseUrl: string,
  task: LoadTask,
  steps: number,
  seed = 'env-server-bench',
): Promise<string[]> {
  const client = await openEnvSession(baseUrl, 600_000);
  const rng = createRng(`${seed}/transcript`);
  const lines: string[] = [];
  try {
    let reply = await client.reset(task);
    for (let step = 0; ; step++) {
      if (reply.error !== undefined) throw new Error(reply.error);
      lines.push(`${reply.admissible.join('|')} won=${reply.won}`);
      if (step === steps || reply.done || reply.admissible.length === 0) break;
      reply = await client.step(rng.pick(reply.admissible));
    }
  } finally {
    await client.close();
  }
  return lines;
}
