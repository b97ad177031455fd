// Bad input in each protocol's own error shape, with the server up and other sessions unaffected:
// malformed JSON, unknown actions, oversized messages, closed and reaped sessions, the cap and a
// flood of creates, a client gone mid-step, a step past its deadline, two steps at once.
import type { TextEnv } from '@pilotrl/core';
import { createMazeEnv, mazeTasks } from '@pilotrl/env-maze';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServedEnv } from './served-env';
import { openSocket, startServer } from './served-envs.testing';

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});
async function serve(options: Parameters<typeof startServer>[0] = {}) {
  const started = await startServer(options);
  stop = () => started.server.close();
  return started;
}

/** A Maze whose steps wait until the test lets them finish. */
function gatedMaze(): { served: ServedEnv; release: () => void; started: Promise<void> } {
  let release: () => void = () => undefined;
  let signalStarted: () => void = () => undefined;
  const started = new Promise<void>((resolve) => {
    signalStarted = resolve;
  });
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const createEnv = (options?: Record<string, unknown>): TextEnv => {
    const env = createMazeEnv(options);
    return {
      envId: 'maze',
      reset: (o) => env.reset(o),
      async step(action) {
        signalStarted();
        await gate;
        return env.step(action);
      },
    };
  };
  return { served: { envId: 'maze', createEnv, tasks: mazeTasks }, release, started };
}

describe('malformed and oversized requests', () => {
  it('answers bad JSON in each shape', async () => {
    const { url, post } = await serve();
    expect(await post('/maze/step', '{"id": 0,')).toMatchObject({
      status: 200,
      text: expect.stringMatching(/^\{"error":"The request body is not valid JSON/),
    });
    const openenv = await post('/openenv/maze/reset', '{nope');
    expect(openenv.status).toBe(422);
    expect(JSON.parse(openenv.text).detail).toMatch(/not valid JSON/);
    const client = await openSocket(`${url}/openenv/maze/ws`);
    expect((await client.ask('{nope')).data.code).toBe('INVALID_JSON');
    expect((await client.ask('[1,2]')).data.code).toBe('VALIDATION_ERROR');
    expect((await client.ask({ type: 'step', data: { action: 'move up' } })).data.message).toMatch(/reset/);
    expect((await client.ask({ type: 'reset', data: { seed: 0 } })).type).toBe('observation');
    client.socket.close();
  });

  it('answers unknown actions as the env does (an observation), not as an error', async () => {
    const { url, postJson } = await serve();
    const { id } = await postJson('/alfworld/create');
    await postJson('/alfworld/reset', { id, game: 1, world_type: 'Text' });
    expect(await postJson('/alfworld/step', { id, action: 'fly to the moon' })).toMatchObject({
      observation: 'Nothing happens.',
      done: false,
    });
    const client = await openSocket(`${url}/openenv/alfworld/ws`);
    await client.ask({ type: 'reset', data: { seed: 1 } });
    expect((await client.ask({ type: 'step', data: { action: 'fly' } })).data.observation.valid).toBe(false);
    client.socket.close();
  });

  it('refuses bodies and messages over the size limit, and keeps the connection', async () => {
    const { url, post } = await serve({ limits: { maxMessageBytes: 1000 } });
    const big = JSON.stringify({ id: 0, action: 'x'.repeat(2000) });
    expect(JSON.parse((await post('/maze/step', big)).text).error).toMatch(
      /larger than the server's limit of 1000 bytes/,
    );
    expect((await post('/openenv/maze/step', big)).status).toBe(413);
    const client = await openSocket(`${url}/openenv/maze/ws`);
    const reply = await client.ask({ type: 'step', data: { action: 'x'.repeat(2000) } });
    expect(reply.data).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: expect.stringMatching(/over the limit of 1000/),
    });
    expect((await client.ask({ type: 'reset', data: { seed: 0 } })).type).toBe('observation');
    client.socket.close();
  });
});

describe('session lifecycle', () => {
  it('reaps idle sessions: AgentGym hears "deleted", a WebSocket gets an error and is closed', async () => {
    let clock = 1_000_000;
    const { url, postJson, server } = await serve({ now: () => clock, limits: { idleTimeoutMs: 60_000 } });
    const { id } = await postJson('/maze/create');
    await postJson('/maze/reset', { id, game: 0 });
    const client = await openSocket(`${url}/openenv/maze/ws`);
    clock += 61_000;
    expect(await server.reapIdle()).toBe(2);
    expect((await postJson('/maze/step', { id, action: 'move up' })).error).toBe(
      `The task with environment ${id} has been deleted: it was idle for more than 60 s and was closed by the server.`,
    );
    expect((await client.next()).data).toMatchObject({
      code: 'SESSION_ERROR',
      message: expect.stringMatching(/idle/),
    });
    expect(await client.closed).toBe(1000);
    expect(server.metrics().sessions).toMatchObject({ open: 0, reaped: 2 });
  });

  it('refuses sessions past the cap in each shape, survives a flood and frees slots on close', async () => {
    const { url, postJson, server } = await serve({ limits: { maxSessions: 20 } });
    const ids: number[] = [];
    const refusals: string[] = [];
    for (let k = 0; k < 100; k++) {
      const reply = await postJson('/maze/create');
      if (typeof reply.id === 'number') ids.push(reply.id);
      else refusals.push(reply.error);
    }
    expect(ids).toHaveLength(20);
    expect(refusals).toHaveLength(80);
    expect(refusals[0]).toMatch(/^The server has 20 of 20 sessions open; close one/);
    const client = await openSocket(`${url}/openenv/maze/ws`);
    expect((await client.next()).data).toMatchObject({
      code: 'CAPACITY_REACHED',
      active_sessions: 20,
      max_sessions: 20,
    });
    expect(await postJson('/maze/reset', { id: ids[0], game: 1 })).toHaveProperty('observation');
    expect(await postJson('/maze/close', { id: ids[1] })).toBe(true);
    expect(await postJson('/maze/create')).toEqual({ id: expect.any(Number) });
    expect(server.metrics().sessions.refused).toBe(81);
  });

  it('closes the session of a client that disconnects mid-step, and other sessions go on', async () => {
    const gated = gatedMaze();
    const { url, server } = await serve({ envs: [gated.served] });
    const other = await openSocket(`${url}/openenv/maze/ws`);
    await other.ask({ type: 'reset', data: { seed: 0 } });
    const leaving = await openSocket(`${url}/openenv/maze/ws`);
    await leaving.ask({ type: 'reset', data: { seed: 0 } });
    leaving.socket.send(JSON.stringify({ type: 'step', data: { action: 'move up' } }));
    await gated.started;
    leaving.socket.terminate();
    await leaving.closed;
    gated.release();
    await expect.poll(() => server.metrics().sessions.open).toBe(1);
    expect((await other.ask({ type: 'step', data: { action: 'move down' } })).type).toBe('observation');
    other.socket.close();
  });

  it('fails a step past its deadline and closes that session only', async () => {
    const gated = gatedMaze();
    const { postJson, server } = await serve({ envs: [gated.served], limits: { stepTimeoutMs: 50 } });
    const { id } = await postJson('/maze/create');
    await postJson('/maze/reset', { id, game: 0 });
    expect((await postJson('/maze/step', { id, action: 'move up' })).error).toMatch(
      /^step took longer than 0.05 s/,
    );
    expect((await postJson('/maze/step', { id, action: 'move up' })).error).toMatch(
      /deleted: a step ran past/,
    );
    expect(server.metrics().sessions.open).toBe(0);
    gated.release();
  });

  it('refuses a second request on a session while its first runs', async () => {
    const gated = gatedMaze();
    const { postJson } = await serve({ envs: [gated.served] });
    const { id } = await postJson('/maze/create');
    await postJson('/maze/reset', { id, game: 0 });
    const first = postJson('/maze/step', { id, action: 'move up' });
    await gated.started;
    expect((await postJson('/maze/step', { id, action: 'move up' })).error).toMatch(
      /still answering an earlier request/,
    );
    gated.release();
    expect(await first).toHaveProperty('observation');
  });
});
