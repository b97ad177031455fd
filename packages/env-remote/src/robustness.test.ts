// What the remote env does when the server is not there, goes away, breaks the protocol or hangs:
// bounded retries, reconnection at the next reset, a lost episode said so, TimeoutError, and
// errors that quote the server. Servers run in this process on 127.0.0.1: our env server, and tiny
// raw ones scripted per test.
import { EnvError, InvalidArgumentError, TimeoutError } from '@pilotrl/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createRemoteEnv, type RemoteEnvConfig } from './index';
import { type RawServer, rawHttpServer, rawWebSocketServer, silentServer } from './misbehaving.testing';
import { type Served, serve } from './serve.testing';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function started(options: Parameters<typeof serve>[0] = {}, port = 0): Promise<Served> {
  const served = await serve(options, port);
  cleanups.push(() => served.server.close());
  return served;
}

async function raw(server: Promise<RawServer>): Promise<RawServer> {
  const ready = await server;
  cleanups.push(() => ready.close());
  return ready;
}

/** A port nothing listens on: one a server just gave back. */
async function freePort(): Promise<number> {
  const served = await serve();
  await served.server.close();
  return served.port;
}

function remote(config: RemoteEnvConfig) {
  const env = createRemoteEnv(config);
  cleanups.push(async () => env.close?.());
  return env;
}

/** The error a promise rejects with (the test fails if it resolves). */
async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

const quick = { connectRetries: 2, retryDelayMs: 1 } as const;

describe('a server that is not there', () => {
  it('fails the reset after the bounded retries, naming the attempts and the cause', async () => {
    const port = await freePort();
    for (const config of [
      { protocol: 'openenv', url: `http://127.0.0.1:${port}`, ...quick },
      { protocol: 'agentgym', dialect: 'maze', url: `http://127.0.0.1:${port}/maze`, ...quick },
    ] satisfies RemoteEnvConfig[]) {
      const error = await failure(remote(config).reset({ seed: 0 }));
      expect(EnvError.isInstance(error)).toBe(true);
      expect(error.message).toMatch(
        /could not connect after 3 attempts \(last: ECONNREFUSED\); is the server running/,
      );
    }
  });

  it('retries a server that answers 503 until it is up', async () => {
    let upgrades = 0;
    const ws = await raw(
      rawWebSocketServer(() => ({
        type: 'observation',
        data: { observation: { text: 'hello', admissible_actions: ['wave'] }, reward: null, done: false },
      })),
    );
    let creates = 0;
    const http = await raw(
      rawHttpServer((route) => {
        if (route !== '/create') return { body: { observation: 'hello', available_actions: ['wave'] } };
        creates += 1;
        return creates < 3 ? { status: 503, body: 'starting' } : { body: { id: 7 } };
      }),
    );
    // The WebSocket server refuses the first upgrade with a 503, as a proxy in front of a starting server does.
    const refusing = await raw(
      rawHttpServer(() => {
        upgrades += 1;
        return { status: 503, body: 'starting' };
      }),
    );
    const refused = await failure(
      remote({ protocol: 'openenv', url: refusing.url, ...quick }).reset({ seed: 0 }),
    );
    expect(refused.message).toMatch(
      /after 3 attempts \(last: the server answered the WebSocket upgrade with HTTP 503\)/,
    );
    expect(upgrades).toBe(3);
    expect(
      (await remote({ protocol: 'openenv', url: ws.url, ...quick }).reset({ seed: 0 })).observation,
    ).toBe('hello');
    const env = remote({ protocol: 'agentgym', dialect: 'generic', url: http.url, ...quick });
    expect((await env.reset({ seed: 0 })).admissibleActions).toEqual(['wave']);
    expect(creates).toBe(3);
  });

  it('does not retry a URL that is not a WebSocket (HTTP 404), and says what to give', async () => {
    const { url, server } = await started();
    const error = await failure(
      remote({ protocol: 'openenv', url: `${url}/openenv/chess`, ...quick }).reset({ seed: 0 }),
    );
    expect(error.message).toMatch(
      /upgrade with HTTP 404; is it an OpenEnv server's WebSocket\? Give the base URL/,
    );
    expect(server.metrics().errors.by_kind).toEqual({ no_route: 1 });
  });
});

describe('a server that goes away', () => {
  it('OpenEnv: an episode cut by a server restart is lost, said at the next step; the next reset reconnects', async () => {
    const first = await started();
    const env = remote({ protocol: 'openenv', url: `${first.url}/openenv/maze`, maxSteps: 1, ...quick });
    // An episode that ended, then a restart between episodes: the next reset reconnects.
    await env.reset({ seed: 0 });
    expect((await env.step('move right')).truncated).toBe(true);
    await first.server.close();
    const second = await started({}, first.port);
    const opening = await env.reset({ seed: 0 });
    expect(opening.admissibleActions).toContain('move right');
    // A restart mid-episode: the episode is lost, every step says so, until a reset. The server
    // said why as it closed (1001, going away).
    await second.server.close();
    const lost = await failure(env.step('move right'));
    expect(EnvError.isInstance(lost)).toBe(true);
    expect(lost.message).toMatch(
      /the episode is lost: the server closed the connection \(code 1001, going away: server shutting down\); call reset\(\) to start a new one/,
    );
    expect((await failure(env.step('move right'))).message).toMatch(/the episode is lost/);
    await started({}, first.port);
    expect(await env.reset({ seed: 0 })).toEqual(opening);
    expect((await env.step('move right')).info.valid).toBe(true);
  });

  it('AgentGym: a step to a server that went away loses the episode; the next reset makes a new session', async () => {
    const first = await started();
    const env = remote({ protocol: 'agentgym', dialect: 'maze', url: `${first.url}/maze`, ...quick });
    const opening = await env.reset({ seed: 4 });
    await env.step('move up');
    await first.server.close();
    const lost = await failure(env.step('move up'));
    expect(lost.message).toMatch(/the episode is lost: .*could not reach the server/);
    expect((await failure(env.step('move up'))).message).toMatch(/the episode is lost/);
    // The new server does not know the old session id: the reset creates a new session.
    const second = await started({}, first.port);
    expect(await env.reset({ seed: 4 })).toEqual(opening);
    expect(second.server.metrics().sessions.open).toBe(1);
  });
});

describe('a server that closes idle sessions', () => {
  it('reaped between episodes: the next reset reconnects (OpenEnv) or makes a new session (AgentGym)', async () => {
    let clock = 0;
    const { server, url } = await started({ limits: { idleTimeoutMs: 60_000 }, now: () => clock });
    const envs = [
      remote({ protocol: 'openenv', url: `${url}/openenv/maze` }),
      remote({ protocol: 'agentgym', dialect: 'maze', url: `${url}/maze` }),
    ];
    const openings = [];
    for (const env of envs) openings.push(await env.reset({ seed: 2 }));
    clock += 61_000;
    expect(await server.reapIdle()).toBe(2);
    await expect.poll(() => server.metrics().sessions.open).toBe(0);
    for (const [i, env] of envs.entries()) expect(await env.reset({ seed: 2 })).toEqual(openings[i]);
    expect(server.metrics().sessions).toMatchObject({ open: 2, reaped: 2 });
  });

  it('OpenEnv: a reset whose kept connection closes under it is sent again, once, on a new connection', async () => {
    const ws = await raw(
      rawWebSocketServer((_message, socket, { connection, messages }) => {
        if (connection === 1 && messages === 2) {
          socket.close(1001, 'going away');
          return undefined;
        }
        return {
          type: 'observation',
          data: { observation: { text: `connection ${connection}` }, reward: null, done: false },
        };
      }),
    );
    const env = remote({ protocol: 'openenv', url: ws.url });
    expect((await env.reset({ seed: 0 })).observation).toBe('connection 1');
    expect((await env.reset({ seed: 0 })).observation).toBe('connection 2');
  });
});

describe('a server that breaks the protocol', () => {
  const openenvReplies: [string, unknown, RegExp][] = [
    [
      'text that is not JSON',
      'this is not json',
      /reset failed: the server sent a message that is not JSON: this is not json/,
    ],
    [
      'an unknown message type',
      { type: 'weird', data: {} },
      /answered reset with a "weird" message; OpenEnv answers with "observation" or "error"/,
    ],
    [
      'an error reply',
      { type: 'error', data: { message: 'no task named x', code: 'EXECUTION_ERROR' } },
      /answered reset with an error: EXECUTION_ERROR: no task named x/,
    ],
    [
      'an observation without text',
      { type: 'observation', data: { observation: { board: [1, 2] }, reward: null, done: false } },
      /the observation has none of the text fields text, observation, prompt, message, feedback \(its keys: board\)/,
    ],
    [
      'an observation reply of the wrong shape',
      { type: 'observation', data: { reward: 'high' } },
      /the reply to reset is not OpenEnv's \{observation, reward, done\}: observation: .*reward: .*done: /s,
    ],
  ];
  for (const [label, reply, message] of openenvReplies) {
    it(`OpenEnv: ${label} is an EnvError that quotes it`, async () => {
      const ws = await raw(rawWebSocketServer(() => reply));
      const error = await failure(remote({ protocol: 'openenv', url: ws.url }).reset({ seed: 0 }));
      expect(EnvError.isInstance(error)).toBe(true);
      expect(error.message).toMatch(message);
    });
  }

  it("OpenEnv: the server's capacity error, sent as it closes a new connection, is in the message", async () => {
    const { url } = await started({ limits: { maxSessions: 1 } });
    await remote({ protocol: 'openenv', url: `${url}/openenv/maze` }).reset({ seed: 0 });
    const error = await failure(
      remote({ protocol: 'openenv', url: `${url}/openenv/maze` }).reset({ seed: 0 }),
    );
    expect(error.message).toMatch(/CAPACITY_REACHED: The server has 1 of 1 sessions open/);
  });

  it('OpenEnv: garbage in the middle of an episode loses it', async () => {
    const ws = await raw(
      rawWebSocketServer((message) =>
        message.type === 'reset'
          ? { type: 'observation', data: { observation: { text: 'start' }, reward: null, done: false } }
          : '{"type": "observation", "data": {',
      ),
    );
    const env = remote({ protocol: 'openenv', url: ws.url });
    await env.reset({ seed: 0 });
    expect((await failure(env.step('go'))).message).toMatch(
      /the episode is lost: the server sent a message that is not JSON/,
    );
  });

  it("OpenEnv: an error reply to a step loses the episode, quoting the server's message", async () => {
    const ws = await raw(
      rawWebSocketServer((message) =>
        message.type === 'reset'
          ? { type: 'observation', data: { observation: { text: 'start' }, reward: null, done: false } }
          : { type: 'error', data: { message: 'env crashed', code: 'EXECUTION_ERROR' } },
      ),
    );
    const env = remote({ protocol: 'openenv', url: ws.url });
    await env.reset({ seed: 0 });
    expect((await failure(env.step('go'))).message).toMatch(
      /the episode is lost: .*answered step with an error: EXECUTION_ERROR: env crashed; call reset\(\)/,
    );
    expect((await env.reset({ seed: 0 })).observation).toBe('start');
  });

  const agentgymReplies: [string, { status?: number; body: unknown }, RegExp][] = [
    [
      "AgentGym's 200 with an error",
      { body: { error: 'The id 0 is not valid.' } },
      /answered reset with an error: The id 0 is not valid\./,
    ],
    [
      'a reply that is not JSON',
      { body: '<html>oops</html>' },
      /the reply to reset is not JSON: <html>oops<\/html>/,
    ],
    [
      'HTTP 500',
      { status: 500, body: 'Internal Server Error' },
      /answered reset with HTTP 500: Internal Server Error/,
    ],
    [
      'a reply without an observation',
      { body: { obs: 'x' } },
      /does not fit AgentGym's maze dialect: observation: /,
    ],
  ];
  for (const [label, reply, message] of agentgymReplies) {
    it(`AgentGym: ${label} is an EnvError that quotes it`, async () => {
      const http = await raw(rawHttpServer((route) => (route === '/create' ? { body: { id: 0 } } : reply)));
      const error = await failure(
        remote({ protocol: 'agentgym', dialect: 'maze', url: http.url }).reset({ seed: 0 }),
      );
      expect(EnvError.isInstance(error)).toBe(true);
      expect(error.message).toMatch(message);
    });
  }

  it('AgentGym: a reply over maxMessageBytes is an EnvError naming the limit', async () => {
    const http = await raw(
      rawHttpServer((route) => (route === '/create' ? { body: { id: 0 } } : { body: 'x'.repeat(5000) })),
    );
    const error = await failure(
      remote({ protocol: 'agentgym', dialect: 'maze', url: http.url, maxMessageBytes: 1000 }).reset({
        seed: 0,
      }),
    );
    expect(EnvError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/\/reset: the reply to reset is longer than maxMessageBytes=1000 bytes/);
  });

  it('AgentGym: a wrong prefix gets a hint', async () => {
    const { url } = await started();
    const error = await failure(remote({ protocol: 'agentgym', dialect: 'maze', url }).reset({ seed: 0 }));
    expect(error.message).toMatch(/HTTP 404: .*Give the dialect's prefix as url/);
  });
});

describe('a server that hangs', () => {
  it('OpenEnv: no connection within connectTimeoutMs is a TimeoutError after the retries', async () => {
    const silent = await raw(silentServer());
    const env = remote({ protocol: 'openenv', url: silent.url, connectTimeoutMs: 50, ...quick });
    const error = await failure(env.reset({ seed: 0 }));
    expect(TimeoutError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/could not connect after 3 attempts \(last: no connection within 50 ms\)/);
  });

  it('OpenEnv: no reply within requestTimeoutMs is a TimeoutError, and mid-episode it loses the episode', async () => {
    const ws = await raw(
      rawWebSocketServer((message) =>
        message.type === 'reset'
          ? { type: 'observation', data: { observation: { text: 'start' }, reward: null, done: false } }
          : undefined,
      ),
    );
    const env = remote({ protocol: 'openenv', url: ws.url, requestTimeoutMs: 1000 });
    await env.reset({ seed: 0 });
    const error = await failure(env.step('go'));
    expect(TimeoutError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/episode is lost: no reply to step within 1000 ms/);
    expect((await failure(env.step('go'))).message).toMatch(/the episode is lost/);
    expect((await env.reset({ seed: 0 })).observation).toBe('start');
  });

  it('AgentGym: a step without a reply is a TimeoutError; a create without one is retried', async () => {
    let creates = 0;
    const http = await raw(
      rawHttpServer((route) => {
        if (route === '/create') {
          creates += 1;
          return creates === 1 ? undefined : { body: { id: 1 } };
        }
        if (route === '/reset') return { body: { observation: 'start', available_actions: ['go'] } };
        return undefined;
      }),
    );
    const env = remote({
      protocol: 'agentgym',
      dialect: 'generic',
      url: http.url,
      connectTimeoutMs: 1000,
      requestTimeoutMs: 1000,
      ...quick,
    });
    await env.reset({ seed: 0 });
    expect(creates).toBe(2);
    const error = await failure(env.step('go'));
    expect(TimeoutError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/episode is lost: .*no reply to step within 1000 ms/);
  });
});

describe('the env itself', () => {
  it('close() releases the session on the server, over both protocols', async () => {
    const { server, url } = await started();
    const envs = [
      remote({ protocol: 'openenv', url: `${url}/openenv/maze` }),
      remote({ protocol: 'agentgym', dialect: 'maze', url: `${url}/maze` }),
    ];
    for (const env of envs) await env.reset({ seed: 1 });
    expect(server.metrics().sessions.open).toBe(2);
    for (const env of envs) await env.close!();
    await expect.poll(() => server.metrics().sessions.open).toBe(0);
    for (const env of envs)
      expect((await failure(env.step('move up'))).message).toMatch(/the env was closed/);
    // A closed env can start again.
    expect((await envs[0]!.reset({ seed: 1 })).admissibleActions).toHaveLength(4);
  });

  it('refuses a second call while one is in flight', async () => {
    const { url } = await started();
    const env = remote({ protocol: 'openenv', url: `${url}/openenv/maze` });
    await env.reset({ seed: 1 });
    const [first, second] = await Promise.allSettled([env.step('move up'), env.step('move up')]);
    expect(first.status).toBe('fulfilled');
    expect(second.status === 'rejected' && second.reason.message).toMatch(
      /while another call is in flight; await each call/,
    );
  });

  it('validates its config and reset options', async () => {
    expect(() => createRemoteEnv({ protocol: 'openenv', url: 'ftp://example.org' })).toThrow(
      InvalidArgumentError,
    );
    expect(() => createRemoteEnv({ protocol: 'agentgym', url: 'http://localhost:1' } as never)).toThrow(
      /dialect/,
    );
    expect(() =>
      createRemoteEnv({ protocol: 'openenv', url: 'http://localhost:1', timeout: 5 } as never),
    ).toThrow(/Unrecognized key: "timeout"/);
    const env = createRemoteEnv({ protocol: 'agentgym', dialect: 'maze', url: 'http://127.0.0.1:1/maze' });
    const error = await failure(env.reset({ seed: 0, taskId: 'valid_unseen-3' }));
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/give taskId as "<n>" or an AgentGym item id "<name>_<n>"/);
  });
});
