// Test helpers: the five paper envs as ServedEnv entries, a server on an ephemeral port of
// 127.0.0.1, and small clients for both protocols.
import { request as httpRequest } from 'node:http';
import { createAlfworldEnv, createGeneratedTaskSource } from '@pilotrl/env-alfworld';
import { babyaiTasks, createBabyaiEnv } from '@pilotrl/env-babyai';
import { createMazeEnv, mazeTasks } from '@pilotrl/env-maze';
import { createTextcraftEnv, textcraftTasks } from '@pilotrl/env-textcraft';
import { createWordleEnv, wordleTasks } from '@pilotrl/env-wordle';
import WebSocket from 'ws';
import type { ServedEnv } from './served-env';
import { createEnvServer, type EnvServerOptions } from './server';

export const paperEnvs: ServedEnv[] = [
  { envId: 'alfworld', createEnv: (o) => createAlfworldEnv(o), tasks: createGeneratedTaskSource() },
  { envId: 'textcraft', createEnv: (o) => createTextcraftEnv(o), tasks: textcraftTasks },
  { envId: 'babyai', createEnv: (o) => createBabyaiEnv(o), tasks: babyaiTasks },
  { envId: 'maze', createEnv: (o) => createMazeEnv(o), tasks: mazeTasks },
  { envId: 'wordle', createEnv: (o) => createWordleEnv(o), tasks: wordleTasks },
];

export async function startServer(options: Partial<EnvServerOptions> = {}) {
  const server = createEnvServer({ envs: paperEnvs, ...options });
  const url = await server.listen(0, '127.0.0.1');
  const post = async (path: string, body?: unknown) => {
    const response = await fetch(url + path, {
      method: 'POST',
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    return { status: response.status, text: await response.text() };
  };
  const postJson = async (path: string, body?: unknown) => JSON.parse((await post(path, body)).text);
  /** A POST from another client: another loopback address (127.0.0.2) as the connection's source. */
  const postFrom = (localAddress: string, path: string, body?: unknown) =>
    new Promise<unknown>((resolve, reject) => {
      const request = httpRequest(url + path, { method: 'POST', localAddress }, (response) => {
        let text = '';
        response.on('data', (chunk) => {
          text += chunk;
        });
        response.on('end', () => resolve(JSON.parse(text)));
      });
      request.on('error', reject);
      request.end(body === undefined ? undefined : JSON.stringify(body));
    });
  const get = async (path: string) => {
    const response = await fetch(url + path);
    return { status: response.status, json: JSON.parse(await response.text()) as unknown };
  };
  return { server, url, post, postJson, postFrom, get };
}

/** An OpenEnv WebSocket reply, typed loosely for tests that read it field by field. */
export interface WsReply {
  type: string;
  data: {
    observation: {
      text: string;
      admissible_actions: string[];
      task: string | null;
      task_id: string | null;
      won: boolean;
      valid: boolean;
      truncated: boolean;
    };
    reward: number | null;
    done: boolean;
    message: string;
    code: string;
    [key: string]: unknown;
  };
}

/** A WebSocket client that reads replies in order. */
export async function openSocket(url: string) {
  const socket = new WebSocket(url.replace(/^http/, 'ws'));
  const replies: WsReply[] = [];
  const waiting: ((reply: WsReply) => void)[] = [];
  socket.on('message', (data) => {
    const reply = JSON.parse(String(data)) as WsReply;
    const next = waiting.shift();
    if (next === undefined) replies.push(reply);
    else next(reply);
  });
  const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  const next = () =>
    new Promise<WsReply>((resolve) => {
      if (replies.length > 0) resolve(replies.shift()!);
      else waiting.push(resolve);
    });
  const ask = (message: unknown) => {
    socket.send(typeof message === 'string' ? message : JSON.stringify(message));
    return next();
  };
  /** Replies no `next` or `ask` has read yet. */
  const unread = () => [...replies];
  return { socket, ask, next, closed, unread };
}
