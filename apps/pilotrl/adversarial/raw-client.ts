// A raw-socket client for the adversarial suite: it writes exactly the bytes a hostile client would
// (malformed request lines, forged Host and Origin headers, WebSocket frames by hand, fragments that
// never finish) and reads what comes back, with every wait bounded.
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';

export interface RawOptions {
  /** The source address: another loopback address (127.0.0.2) is another client to the server. */
  localAddress?: string;
  /** How long to wait for the server to answer and close (default 5 s). */
  timeoutMs?: number;
}

export function openSocket(port: number, localAddress?: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({
      port,
      host: '127.0.0.1',
      ...(localAddress === undefined ? {} : { localAddress }),
    });
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Writes `text` and collects what the server sends until it closes or `timeoutMs` passes. */
export async function rawExchange(port: number, text: string | Buffer, options: RawOptions = {}) {
  const socket = await openSocket(port, options.localAddress);
  return new Promise<{ reply: string; closedByServer: boolean }>((resolve) => {
    let reply = '';
    socket.on('data', (chunk) => {
      reply += chunk.toString('latin1');
    });
    socket.on('error', () => undefined);
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ reply, closedByServer: false });
    }, options.timeoutMs ?? 5000);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve({ reply, closedByServer: true });
    });
    socket.write(text);
  });
}

/** An HTTP/1.1 request's bytes, `Connection: close`. */
export function httpRequest(
  method: string,
  target: string,
  headers: Record<string, string> = {},
  body?: string,
): string {
  const all: Record<string, string> = { Host: '127.0.0.1', Connection: 'close', ...headers };
  if (body !== undefined) all['Content-Length'] = String(Buffer.byteLength(body));
  const lines = Object.entries(all).map(([name, value]) => `${name}: ${value}`);
  return `${method} ${target} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n${body ?? ''}`;
}

/** The status code of a raw HTTP reply (0 when there is none). */
export const statusOf = (reply: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(reply)?.[1] ?? 0);

/** A client frame (masked, as clients must): `fin` false leaves a message unfinished. */
export function clientFrame(
  payload: Buffer,
  options: { opcode?: number; fin?: boolean; length?: number } = {},
) {
  const length = options.length ?? payload.length;
  const head = [((options.fin ?? true) ? 0x80 : 0) | (options.opcode ?? 1)];
  if (length < 126) head.push(0x80 | length);
  else if (length < 65_536) head.push(0x80 | 126, length >> 8, length & 0xff);
  else {
    head.push(0x80 | 127, 0, 0, 0, 0);
    head.push((length >>> 24) & 0xff, (length >>> 16) & 0xff, (length >>> 8) & 0xff, length & 0xff);
  }
  const mask = randomBytes(4);
  const masked = Buffer.from(payload);
  for (let i = 0; i < masked.length; i++) masked[i]! ^= mask[i % 4]!;
  return Buffer.concat([Buffer.from(head), mask, masked]);
}

export interface ServerFrame {
  opcode: number;
  payload: Buffer;
}

/** Reads the server's (unmasked) frames out of `buffer`; returns them and the unread rest. */
export function readFrames(buffer: Buffer): { frames: ServerFrame[]; rest: Buffer } {
  const frames: ServerFrame[] = [];
  let at = 0;
  for (;;) {
    if (buffer.length - at < 2) break;
    const opcode = buffer[at]! & 0x0f;
    let length = buffer[at + 1]! & 0x7f;
    let head = 2;
    if (length === 126) {
      if (buffer.length - at < 4) break;
      length = buffer.readUInt16BE(at + 2);
      head = 4;
    } else if (length === 127) {
      if (buffer.length - at < 10) break;
      length = Number(buffer.readBigUInt64BE(at + 2));
      head = 10;
    }
    if (buffer.length - at < head + length) break;
    frames.push({ opcode, payload: buffer.subarray(at + head, at + head + length) });
    at += head + length;
  }
  return { frames, rest: buffer.subarray(at) };
}

/** A WebSocket opened by hand: its 101 answer read, then frames in and out. */
export interface RawWebSocket {
  readonly socket: Socket;
  send(text: string): void;
  /** Resolves with the next server frame, or undefined when the server closed first or `timeoutMs` passed. */
  next(timeoutMs?: number): Promise<ServerFrame | undefined>;
  /** The close frame's code, once one arrived. */
  closeCode(): number | undefined;
  closed(): Promise<void>;
}

export async function openWebSocket(
  port: number,
  path: string,
  options: { localAddress?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; reply: string; ws?: RawWebSocket }> {
  const socket = await openSocket(port, options.localAddress);
  socket.on('error', () => undefined);
  const key = randomBytes(16).toString('base64');
  socket.write(
    httpRequest('GET', path, {
      Connection: 'Upgrade',
      Upgrade: 'websocket',
      'Sec-WebSocket-Key': key,
      'Sec-WebSocket-Version': '13',
      ...options.headers,
    }),
  );
  let buffer = Buffer.alloc(0);
  const head = await new Promise<string>((resolve) => {
    const timer = setTimeout(() => resolve(buffer.toString('latin1')), 5000);
    const onData = (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      const end = buffer.indexOf('\r\n\r\n');
      if (end !== -1) {
        clearTimeout(timer);
        socket.off('data', onData);
        const text = buffer.subarray(0, end + 4).toString('latin1');
        buffer = buffer.subarray(end + 4);
        resolve(text);
      }
    };
    socket.on('data', onData);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(buffer.toString('latin1'));
    });
  });
  const status = statusOf(head);
  if (status !== 101) {
    socket.destroy();
    return { status, reply: head };
  }
  const queue: ServerFrame[] = [];
  let waiting: ((frame: ServerFrame | undefined) => void) | undefined;
  let code: number | undefined;
  let ended = false;
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  void closed.then(() => {
    ended = true;
    waiting?.(undefined);
    waiting = undefined;
  });
  const take = (chunk: Buffer) => {
    const read = readFrames(Buffer.concat([buffer, chunk]));
    buffer = Buffer.from(read.rest);
    for (const frame of read.frames) {
      if (frame.opcode === 8) code = frame.payload.length >= 2 ? frame.payload.readUInt16BE(0) : 1005;
      if (frame.opcode === 9) socket.write(clientFrame(frame.payload, { opcode: 10 }));
      if (waiting !== undefined) {
        waiting(frame);
        waiting = undefined;
      } else queue.push(frame);
    }
  };
  socket.on('data', take);
  if (buffer.length > 0) take(Buffer.alloc(0));
  const ws: RawWebSocket = {
    socket,
    send: (text) => socket.write(clientFrame(Buffer.from(text))),
    next: (timeoutMs = 5000) => {
      const queued = queue.shift();
      if (queued !== undefined) return Promise.resolve(queued);
      if (ended) return Promise.resolve(undefined);
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          waiting = undefined;
          resolve(undefined);
        }, timeoutMs);
        waiting = (frame) => {
          clearTimeout(timer);
          resolve(frame);
        };
      });
    },
    closeCode: () => code,
    closed: () => closed,
  };
  return { status, reply: head, ws };
}
