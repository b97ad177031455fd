// Tiny raw servers for the error paths: a WebSocket server and an HTTP server that answer each
// message or request as a test scripts them, including not at all.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import {
  type AddressInfo,
  createServer as createNetServer,
  type Server as NetServer,
  type Socket,
} from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';

export interface RawServer {
  readonly url: string;
  close(): Promise<void>;
}

async function listen(server: Server | NetServer, sockets: Set<Socket>): Promise<RawServer> {
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Which connection a message came on (1, 2, ...) and how many it has brought so far, this one included. */
export interface ConnectionCount {
  readonly connection: number;
  readonly messages: number;
}

/**
 * A WebSocket server at `/ws` whose answer to each message is `reply(message, socket, count)`: a
 * string sent as is, an object sent as JSON, undefined for no answer.
 */
export async function rawWebSocketServer(
  reply: (message: { type: string; data?: unknown }, socket: WebSocket, count: ConnectionCount) => unknown,
): Promise<RawServer> {
  const http = createServer((_request, response) => response.writeHead(404).end());
  const sockets = new WebSocketServer({ server: http, path: '/ws' });
  let connections = 0;
  sockets.on('connection', (socket) => {
    connections += 1;
    const connection = connections;
    let messages = 0;
    socket.on('message', (data) => {
      messages += 1;
      const answer = reply(JSON.parse(String(data)), socket, { connection, messages });
      if (answer !== undefined) socket.send(typeof answer === 'string' ? answer : JSON.stringify(answer));
    });
  });
  const raw = await listen(http, new Set());
  return {
    url: raw.url,
    close: async () => {
      for (const client of sockets.clients) client.terminate();
      await new Promise<void>((resolve) => sockets.close(() => resolve()));
      await raw.close();
    },
  };
}

/**
 * An HTTP server whose answer to `POST <route>` or `GET <route>` is `reply(route, body)`:
 * `{status, body}` (body a string sent as is), or undefined for no answer.
 */
export async function rawHttpServer(
  reply: (route: string, body: unknown) => { status?: number; body: unknown } | undefined,
): Promise<RawServer> {
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let text = '';
    request.on('data', (chunk: Buffer) => {
      text += chunk;
    });
    request.on('end', () => {
      const route = new URL(request.url ?? '/', 'http://x').pathname;
      const answer = reply(route, text === '' ? undefined : JSON.parse(text));
      if (answer === undefined) return;
      const body = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
      response.writeHead(answer.status ?? 200, { 'content-type': 'application/json' }).end(body);
    });
  });
  return listen(server, new Set());
}

/** A TCP server that accepts connections and never says a word: a hung server. */
export async function silentServer(): Promise<RawServer> {
  return listen(createNetServer(), new Set());
}
