// Plumbing shared by the HTTP routes: a body read under a size cap, JSON answers written the way
// FastAPI writes them (compact; a Python float keeps its `.0`), and the request's path and query.
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The body was larger than the cap; the answer is written once the rest has been read away. */
export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`The request body is larger than the server's limit of ${limit} bytes`);
  }
}

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

/** A number that Python would have as a float: written `1.0`, not `1`. */
export class PyFloat {
  constructor(readonly value: number) {}
}

/** JSON as FastAPI writes it; `PyFloat` values keep Python's float form. */
export function pythonJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item instanceof PyFloat ? floatMarker(item.value) : item,
  ).replace(/"\\u0000float:([^"]*)"/g, '$1');
}

const floatMarker = (value: number) => {
  const text = String(value);
  return `\u0000float:${Number.isInteger(value) && !/e/i.test(text) ? `${text}.0` : text}`;
};

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = pythonJson(body);
  if (response.headersSent || response.destroyed) return;
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

export interface ParsedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
}

export function parseRequest(request: IncomingMessage): ParsedRequest {
  const url = new URL(request.url ?? '/', 'http://localhost');
  // One trailing slash is the same route (`/maze/` is `/maze`).
  const path = url.pathname.length > 1 ? url.pathname.replace(/\/$/, '') : url.pathname;
  return { method: request.method ?? 'GET', path, query: url.searchParams };
}

/** Parses JSON text, or says why it is not JSON, so callers answer in their protocol's shape. */
export function parseJson(text: string): { ok: true; value: unknown } | { ok: false; problem: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, problem: (error as Error).message };
  }
}
