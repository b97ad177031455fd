// JSON as the HTTP routes write and read it: answers written the way FastAPI writes them (compact; a
// Python float keeps its `.0`), and bodies parsed with the reason they are not JSON.
import type { ServerResponse } from 'node:http';

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

/** Parses JSON text, or says why it is not JSON, so callers answer in their protocol's shape. */
export function parseJson(text: string): { ok: true; value: unknown } | { ok: false; problem: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, problem: (error as Error).message };
  }
}
