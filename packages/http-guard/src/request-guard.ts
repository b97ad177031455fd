// What a server checks of every request before it routes it, HTTP or WebSocket upgrade alike: the
// Host header against an allow-list (a DNS-rebinding page names its own host), the Origin header
// against another (a web page the user visits sends its origin; clients outside a browser send
// none), and, when a token is set, `Authorization: Bearer <token>`, compared in constant time.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { ConfigError, parseOrThrow } from '@pilotrl/core';
import { z } from 'zod';

/** The names a server bound to loopback answers to. */
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '::1'];

/** Shortest bearer token taken: a token guessable by trying is no protection. */
export const MIN_TOKEN_CHARS = 16;

export const requestGuardOptionsSchema = z.strictObject({
  /**
   * Host names (without port) the server answers to; the loopback names by default. A server
   * bound to another address adds that address itself; `*` answers any Host (only behind a proxy
   * that checks Host).
   */
  allowedHosts: z.array(z.string().min(1)).default([...LOOPBACK_HOSTS]),
  /** Origins (`scheme://host[:port]`) whose web pages may call the server; none by default. */
  allowedOrigins: z.array(z.string().min(1)).default([]),
  /** When set, every request must carry `Authorization: Bearer <token>`. */
  token: z.string().min(MIN_TOKEN_CHARS).optional(),
});
export type RequestGuardOptions = z.input<typeof requestGuardOptionsSchema>;

/** Why a request is refused, as the status and message the server answers with. */
export interface GuardRefusal {
  readonly status: 400 | 401 | 403;
  readonly message: string;
  /** What the refusal is counted as in the server's metrics. */
  readonly reason: 'bad_host' | 'bad_origin' | 'unauthorized';
}

/** The host name of a Host header (`[::1]:8000` → `::1`, `Example.COM:80` → `example.com`). */
export function hostName(header: string): string {
  const value = header.trim().toLowerCase();
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    return end === -1 ? value : value.slice(1, end);
  }
  const colon = value.indexOf(':');
  // A bare IPv6 address (an allow-list entry, never a Host header) has several colons and no port.
  if (colon === -1 || value.indexOf(':', colon + 1) !== -1) return value;
  return value.slice(0, colon);
}

const normalOrigin = (origin: string) => origin.trim().toLowerCase().replace(/\/+$/, '');

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

export class RequestGuard {
  private readonly hosts: Set<string>;
  private readonly anyHost: boolean;
  private readonly origins: Set<string>;
  private readonly tokenDigest: Buffer | undefined;

  constructor(options: RequestGuardOptions = {}) {
    const parsed = parseOrThrow(requestGuardOptionsSchema, options, 'request guard options');
    this.anyHost = parsed.allowedHosts.includes('*');
    this.hosts = new Set(parsed.allowedHosts.map(hostName));
    this.origins = new Set(parsed.allowedOrigins.map(normalOrigin));
    this.tokenDigest = parsed.token === undefined ? undefined : digest(parsed.token);
  }

  /** Whether a token is required. */
  get requiresToken(): boolean {
    return this.tokenDigest !== undefined;
  }

  /** Answers Host headers naming `host` too (a server bound to a specific, non-loopback address). */
  allowHost(host: string): void {
    if (host !== '0.0.0.0' && host !== '::' && host !== '') this.hosts.add(hostName(host));
  }

  /** Undefined when the request may go on; else why not. Never echoes what the client sent. */
  check(request: IncomingMessage): GuardRefusal | undefined {
    const host = request.headers.host;
    if (host === undefined || (!this.anyHost && !this.hosts.has(hostName(host)))) {
      return {
        status: 403,
        reason: 'bad_host',
        message:
          'The Host header names a host this server does not answer to; it answers its loopback names and the hosts given with --allow-host',
      };
    }
    const origin = request.headers.origin;
    if (origin !== undefined && !this.origins.has(normalOrigin(origin))) {
      return {
        status: 403,
        reason: 'bad_origin',
        message:
          'Requests from web pages are refused unless their origin is given with --allow-origin; clients outside a browser send no Origin',
      };
    }
    if (this.tokenDigest !== undefined) {
      const header = request.headers.authorization ?? '';
      const match = /^Bearer +(.+)$/i.exec(header.trim());
      if (match === null || !timingSafeEqual(digest(match[1]!), this.tokenDigest)) {
        return {
          status: 401,
          reason: 'unauthorized',
          message: 'This server needs the header "Authorization: Bearer <token>" with its token',
        };
      }
    }
    return undefined;
  }
}

/**
 * The bearer token in the environment variable `name`, for a server's `--token-env` option: the
 * token stays out of the command line (and so out of `ps`) and out of every log.
 */
export function tokenFromEnv(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const value = env[name];
  if (value === undefined || value === '') {
    throw new ConfigError(`the token variable ${name} is not set; export ${name}=<a random token> first`);
  }
  if (value.length < MIN_TOKEN_CHARS) {
    throw new ConfigError(
      `the token in ${name} has ${value.length} characters; use at least ${MIN_TOKEN_CHARS} (e.g. openssl rand -hex 24)`,
    );
  }
  return value;
}
