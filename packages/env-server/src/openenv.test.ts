// OpenEnv's wire against our server: WebSocket episodes played to a win with the oracle's actions,
// the HTTP routes, the root routes of a single-env server, and the reward hook.
import { createGeneratedTaskSource } from '@pilotrl/env-alfworld';
import { mazeTasks } from '@pilotrl/env-maze';
import { afterEach, describe, expect, it } from 'vitest';
import { openSocket, paperEnvs, startServer } from './served-envs.testing';

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

describe('OpenEnv over WebSocket', () => {
  it('plays an ALFWorld task to a win with the oracle, then reports the state and closes', async () => {
    const { url, server } = await serve();
    const [task] = await createGeneratedTaskSource().tasks('train', { offset: 0, limit: 1 });
    const { actions } = await createGeneratedTaskSource().oracle!(task!);
    const client = await openSocket(`${url}/openenv/alfworld/ws`);
    const first = await client.ask({ type: 'reset', data: { split: 'train', index: 0, episode_id: 'ep-1' } });
    expect(first.type).toBe('observation');
    expect(first.data.reward).toBeNull();
    expect(first.data.done).toBe(false);
    expect(first.data.observation.task_id).toBe(task!.taskId);
    expect(first.data.observation.admissible_actions).toContain('look');
    let last = first;
    for (const action of actions) last = await client.ask({ type: 'step', data: { action } });
    expect(last.data).toMatchObject({ reward: 1, done: true, observation: { won: true, valid: true } });
    const state = await client.ask({ type: 'state' });
    expect(state).toEqual({
      type: 'state',
      data: {
        episode_id: 'ep-1',
        step_count: actions.length,
        env_id: 'alfworld',
        task_id: task!.taskId,
        done: true,
        won: true,
        total_reward: 1,
      },
    });
    client.socket.send(JSON.stringify({ type: 'close' }));
    expect(await client.closed).toBe(1000);
    // The client's own close is no error: it hears none, and the metrics count none.
    expect(client.unread()).toEqual([]);
    expect(server.metrics().errors.by_kind).toEqual({});
  });

  it('resets by seed and by task id, deterministically', async () => {
    const { url } = await serve();
    const client = await openSocket(`${url}/openenv/maze/ws`);
    const bySeed = await client.ask({ type: 'reset', data: { seed: 3 } });
    const again = await client.ask({ type: 'reset', data: { seed: 3 } });
    expect(again.data.observation).toEqual(bySeed.data.observation);
    const byTask = await client.ask({ type: 'reset', data: { task_id: 'valid_unseen-3' } });
    expect(byTask.data.observation.task_id).toBe('valid_unseen-3');
    const [task] = await mazeTasks.tasks('valid_unseen', { offset: 3, limit: 1 });
    for (const action of (await mazeTasks.oracle(task!)).actions)
      await client.ask({ type: 'step', data: { action } });
    expect((await client.ask({ type: 'state' })).data).toMatchObject({
      won: true,
      done: true,
      total_reward: 1,
    });
    client.socket.close();
  });

  it('reports the reward of the hook it is given', async () => {
    const { url } = await serve({
      reward: ({ result, stepCount }) => (result.info.valid ? 0.5 : -stepCount),
    });
    const client = await openSocket(`${url}/openenv/maze/ws`);
    await client.ask({ type: 'reset', data: { seed: 0 } });
    expect((await client.ask({ type: 'step', data: { action: 'move down' } })).data.reward).toBe(0.5);
    expect((await client.ask({ type: 'step', data: { action: 'jump' } })).data.reward).toBe(-2);
    client.socket.close();
  });
});

describe('OpenEnv over HTTP', () => {
  it('answers health, schema, metadata and state', async () => {
    const { get } = await serve();
    expect(await get('/health')).toEqual({ status: 200, json: { status: 'healthy' } });
    expect(await get('/openenv/wordle/health')).toEqual({ status: 200, json: { status: 'healthy' } });
    const schema = (await get('/openenv/alfworld/schema')).json as Record<string, { properties: object }>;
    expect(Object.keys(schema)).toEqual(['action', 'observation', 'state']);
    expect(Object.keys(schema.action!.properties)).toContain('action');
    expect(Object.keys(schema.observation!.properties)).toEqual([
      'text',
      'admissible_actions',
      'task',
      'task_id',
      'won',
      'valid',
      'truncated',
    ]);
    expect(Object.keys(schema.state!.properties)).toContain('step_count');
    const metadata = (await get('/openenv/babyai/metadata')).json as Record<string, unknown>;
    expect(metadata).toMatchObject({ name: 'babyai', version: expect.any(String) });
    expect((await get('/openenv/maze/state')).json).toMatchObject({ episode_id: null, step_count: 0 });
  });

  it('resets and steps statelessly, each call on a fresh env', async () => {
    const { post, server } = await serve();
    const reset = JSON.parse((await post('/openenv/maze/reset', { seed: 2 })).text);
    expect(reset).toMatchObject({ reward: null, done: false, observation: { valid: true } });
    const step = await post('/openenv/maze/step', { seed: 2, action: { action: 'move left' } });
    expect(step.status).toBe(200);
    expect(JSON.parse(step.text)).toMatchObject({ reward: 0, done: false });
    expect(server.metrics().sessions.open).toBe(0);
  });

  it('serves a single env at the root too, so GenericEnvClient(base_url) finds /ws', async () => {
    const { url, get } = await serve({ envs: paperEnvs.filter((env) => env.envId === 'maze') });
    expect((await get('/schema')).status).toBe(200);
    const client = await openSocket(`${url}/ws`);
    const first = await client.ask({ type: 'reset', data: { seed: 1 } });
    expect(first.data.observation.admissible_actions).toEqual([
      'move left',
      'move right',
      'move up',
      'move down',
    ]);
    client.socket.close();
  });
});
