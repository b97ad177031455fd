// The request plumbing both servers share: a body read under a size cap, a request line parsed
// without throwing, an upgrade refused with a plain HTTP answer, and caps on open connections in
// total and per client address.
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** The body was larger than the cap; the answer is written once the rest has been read away. */
export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`The request body is larger than the server's limit of ${limit} bytes`);
  }
}

/** The body as UTF-8 text, or `BodyTooLargeError` past `limit` bytes (declared or sent). */
export function readBody(request: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      request.resume();
      reject(new BodyTooLargeError(limit));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        // Stop keeping the bytes but go on reading them, so the answer still reaches the client.
        request.removeAllListeners('data');
        request.resume();
        reject(new BodyTooLargeError(limit));
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

export interface ParsedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
}

/**
 * The request's method, path (one trailing slash dropped: `/maze/` is `/maze`) and query; undefined
 * for a request target that is not a path (`//[`, `http://x`, `*`), which the server answers 400.
 */
export function parseRequest(request: IncomingMessage): ParsedRequest | undefined {
  const target = request.url ?? '/';
  if (!target.startsWith('/') || target.startsWith('//')) return undefined;
  let url: URL;
  try {
    url = new URL(target, 'http://localhost');
  } catch {
    return undefined;
  }
  const path = url.pathname.length > 1 ? url.pathname.replace(/\/$/, '') : url.pathname;
  return { method: request.method ?? 'GET', path, query: url.searchParams };
}

/** A client's value quoted in an answer: JSON-escaped and cut to 64 characters, so nothing it sent is echoed whole. */
export function quoted(value: unknown): string {
  const text = typeof value === 'string' ? value : String(value);
  return JSON.stringify(text.length > 64 ? `${text.slice(0, 64)}…` : text);
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  503: 'Service Unavailable',
};

/** Answers an upgrade request on its raw socket with `status` and a JSON `{detail}`, then closes it. */
export function refuseUpgrade(socket: Duplex, status: number, detail: string): void {
  const body = JSON.stringify({ detail });
  const extra = status === 401 ? 'www-authenticate: Bearer\r\n' : '';
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}\r\ncontent-type: application/json\r\n${extra}` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
  // A client that never reads the answer nor closes does not hold the socket.
  setTimeout(() => socket.destroy(), 2000).unref();
}

export interface ConnectionCaps {
  /** Open connections at most, over every client. */
  maxConnections: number;
  /** Open connections at most from one client address. */
  maxConnectionsPerClient: number;
}

/**
 * Caps the server's open connections in total and per client address: one over either cap is
 * closed as it arrives (before a byte is read), so a flood of sockets cannot hold the memory of
 * their half-sent requests or lock other clients out. Returns the open count per address.
 */
export function capConnections(server: Server, caps: ConnectionCaps): { open(): number; refused(): number } {
  const perClient = new Map<string, number>();
  let open = 0;
  let refused = 0;
  server.on('connection', (socket: Socket) => {
    const client = socket.remoteAddress ?? 'unknown';
    const mine = perClient.get(client) ?? 0;
    if (open >= caps.maxConnections || mine >= caps.maxConnectionsPerClient) {
      refused += 1;
      socket.destroy();
      return;
    }
    open += 1;
    perClient.set(client, mine + 1);
    socket.once('close', () => {
      open -= 1;
      const left = (perClient.get(client) ?? 1) - 1;
      if (left === 0) perClient.delete(client);
      else perClient.set(client, left);
    });
  });
  return { open: () => open, refused: () => refused };
}
