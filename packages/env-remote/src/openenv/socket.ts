// One WebSocket to an OpenEnv server's `/ws`: a connection attempt under a deadline, then one
// request at a time, each answered by the next message under its own deadline. Anything the server
// does outside the protocol (a message that is not JSON, an unknown type, a reply nobody asked
// for, a close) fails the request in flight, or the next one, with a message that says what came.
import { EnvError, printable, TimeoutError } from '@pilotrl/core';
import WebSocket, { type RawData } from 'ws';
import { z } from 'zod';
import { ConnectFailure } from '../retry';

/** A message the server sent: `{type, data}`. */
export interface ServerMessage {
  readonly type: string;
  readonly data: unknown;
}

const messageSchema = z.looseObject({ type: z.string(), data: z.unknown() });
const errorDataSchema = z.looseObject({ message: z.string().optional(), code: z.string().optional() });

/** Close codes a server sends on purpose, and what they mean here. */
const CLOSE_MEANINGS: Record<number, string> = {
  1000: 'closed normally',
  1001: 'going away',
  1006: 'dropped without a close frame',
  1009: 'message too big',
  1011: 'server error',
  1013: 'try again later',
};

/** The text of a server's error message: `CODE: message`. */
export function describeServerError(data: unknown): string {
  const parsed = errorDataSchema.safeParse(data);
  if (!parsed.success) return printable(JSON.stringify(data) ?? String(data), 500);
  const { code, message } = parsed.data;
  return `${code ?? 'ERROR'}: ${printable(message ?? JSON.stringify(data), 1000)}`;
}

/**
 * Error codes after which openenv-core's server closes the connection (its session could not be
 * made, or is over); @pilotrl/env-server does the same.
 */
const SESSION_ENDING_CODES = new Set(['SESSION_ERROR', 'CAPACITY_REACHED', 'FACTORY_ERROR']);

const sessionEnding = (data: unknown): boolean => {
  const parsed = errorDataSchema.safeParse(data);
  return parsed.success && SESSION_ENDING_CODES.has(parsed.data.code ?? '');
};

export interface SocketOptions {
  readonly url: string;
  readonly connectTimeoutMs: number;
  readonly maxMessageBytes: number;
}

interface Pending {
  readonly what: string;
  resolve(message: ServerMessage): void;
  reject(error: Error): void;
}

export class OpenEnvSocket {
  private pending: Pending | undefined;
  /** Why the socket cannot be used any more; set once, when it closes or misbehaves. */
  private brokenBecause: string | undefined;
  /** An error the server sent when nothing was asked (e.g. its capacity is reached), for the next report. */
  private unsolicited: string | undefined;

  private constructor(
    private readonly socket: WebSocket,
    private readonly url: string,
  ) {
    socket.on('message', (data: RawData) => this.receive(data));
    socket.on('error', () => {
      // `close` follows and reports; ws emits `error` first on a protocol violation or a reset.
    });
    socket.on('close', (code: number, reason: Buffer) => {
      const meaning = CLOSE_MEANINGS[code];
      const said = reason.length > 0 ? `: ${printable(reason.toString('utf8'), 200)}` : '';
      this.break(`the server closed the connection (code ${code}${meaning ? `, ${meaning}` : ''}${said})`);
    });
  }

  /** Opens a connection; a refusal, a reset or a timeout is a `ConnectFailure` (retried by the caller). */
  static open(options: SocketOptions): Promise<OpenEnvSocket> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(options.url, {
        maxPayload: options.maxMessageBytes,
        perMessageDeflate: false,
      });
      let settled = false;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        outcome();
      };
      const timer = setTimeout(() => {
        settle(() => reject(new ConnectFailure(`no connection within ${options.connectTimeoutMs} ms`, true)));
        socket.terminate();
      }, options.connectTimeoutMs);
      socket.once('open', () => settle(() => resolve(new OpenEnvSocket(socket, options.url))));
      socket.once('unexpected-response', (_request, response) => {
        const status = response.statusCode ?? 0;
        response.resume();
        socket.terminate();
        settle(() => {
          const problem = `the server answered the WebSocket upgrade with HTTP ${status}`;
          // A 5xx may be a server still starting; a 4xx is a wrong URL and will not get better.
          if (status >= 500) reject(new ConnectFailure(problem, false));
          else
            reject(
              new EnvError(
                `${options.url}: ${problem}; is it an OpenEnv server's WebSocket? Give the base URL (http://host:port) or the full ws://host:port/ws`,
              ),
            );
        });
      });
      socket.on('error', (error: Error & { code?: string }) => {
        settle(() => reject(new ConnectFailure(error.code ?? error.message, false)));
      });
    });
  }

  get open(): boolean {
    return this.brokenBecause === undefined && this.socket.readyState === WebSocket.OPEN;
  }

  /** Why the connection is unusable, or undefined while it is fine. */
  get problem(): string | undefined {
    return this.brokenBecause;
  }

  /**
   * Sends `message` and resolves with the server's next message. Rejects with a `TimeoutError`
   * after `timeoutMs` (the connection is then closed: a late reply would answer the wrong request),
   * and with an `EnvError` when the connection breaks or the server answers outside the protocol.
   */
  request(message: object, what: string, timeoutMs: number): Promise<ServerMessage> {
    if (this.pending !== undefined) {
      return Promise.reject(
        new EnvError(`${this.url}: ${what} while ${this.pending.what} waits for its reply; await each call`),
      );
    }
    if (!this.open) {
      return Promise.reject(new EnvError(`${this.url}: cannot send ${what}: ${this.reason()}`));
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending = undefined;
        this.break(`no reply to ${what} within ${timeoutMs} ms`);
        this.socket.terminate();
        reject(
          new TimeoutError(
            `${this.url}: no reply to ${what} within ${timeoutMs} ms (requestTimeoutMs); the connection was closed`,
          ),
        );
      }, timeoutMs);
      this.pending = {
        what,
        resolve: (reply) => {
          clearTimeout(timer);
          resolve(reply);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      this.socket.send(JSON.stringify(message), (error) => {
        if (error !== undefined && error !== null) this.break(`sending ${what} failed: ${error.message}`);
      });
    });
  }

  /** Says goodbye as OpenEnv's client does (`{"type": "close"}`) and closes; resolves once closed. */
  async close(graceMs = 1000): Promise<void> {
    const socket = this.socket;
    if (socket.readyState === WebSocket.CLOSED) return;
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    if (socket.readyState === WebSocket.OPEN) {
      this.break('closed by this client');
      socket.send(JSON.stringify({ type: 'close' }));
      socket.close(1000, 'closed');
    }
    const timer = setTimeout(() => socket.terminate(), graceMs);
    await closed;
    clearTimeout(timer);
  }

  private receive(data: RawData): void {
    const text = (Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer)).toString(
      'utf8',
    );
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      this.violate(`the server sent a message that is not JSON: ${printable(text, 200)}`);
      return;
    }
    const message = messageSchema.safeParse(parsed);
    if (!message.success) {
      this.violate(`the server sent a message without a "type": ${printable(text, 200)}`);
      return;
    }
    if (message.data.type === 'error' && sessionEnding(message.data.data)) {
      // Whether it answers the request in flight or came unasked, the session is over: the
      // server closes the connection next.
      this.break(`the server ended the session (${describeServerError(message.data.data)})`);
      this.socket.close();
      return;
    }
    const pending = this.pending;
    if (pending === undefined) {
      if (message.data.type === 'error') {
        this.unsolicited = describeServerError(message.data.data);
        return;
      }
      this.violate(`the server sent a "${printable(message.data.type, 50)}" message nobody asked for`);
      return;
    }
    this.pending = undefined;
    pending.resolve({ type: message.data.type, data: message.data.data });
  }

  /** The server broke the protocol: the request in flight fails, and the connection is closed. */
  private violate(problem: string): void {
    this.break(problem);
    this.socket.terminate();
  }

  private break(problem: string): void {
    if (this.brokenBecause === undefined) this.brokenBecause = problem;
    const pending = this.pending;
    this.pending = undefined;
    pending?.reject(new EnvError(`${this.url}: ${pending.what} failed: ${this.reason()}`));
  }

  private reason(): string {
    const because = this.brokenBecause ?? 'the connection is closed';
    return this.unsolicited === undefined ? because : `${because}; the server said ${this.unsolicited}`;
  }
}
