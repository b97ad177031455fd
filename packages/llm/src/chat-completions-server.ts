// Serves any core `Policy` behind the OpenAI chat-completions API (`POST /v1/chat/completions`,
// `GET /v1/models`) with node:http. Concurrent requests are gathered into batches so a batched
// policy (e.g. a tfjs model) makes one `generate` call for many clients; batches run one at a time.
// `close()` is bounded: requests in flight get `shutdownTimeoutMs` to finish, then their connections
// are cut, so neither a hung policy nor a client holding its connection can keep the server alive.
// Every request first passes the request guard (@pilotrl/http-guard: Host and Origin allow-lists,
// the optional bearer key), so a web page the user visits can neither drive the server nor read its
// answers; bodies, header and body times, and open connections are all bounded.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type ChatMessage,
  type GenerateRequest,
  type GenerateResult,
  InvalidArgumentError,
  type Policy,
  parseOrThrow,
} from '@pilotrl/core';
import {
  BodyTooLargeError,
  capConnections,
  parseRequest,
  quoted,
  RequestGuard,
  readBody,
  tokenFromEnv,
} from '@pilotrl/http-guard';
import { z } from 'zod';
import { type ChatCompletionRequest, chatCompletionRequestSchema } from './openai-wire';
import { createRequestBatcher } from './request-batcher';

/** The longest delay `setTimeout` keeps; a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** How long a client may take to send a request's headers, in ms: a trickle cannot hold a socket. */
const HEADERS_TIMEOUT_MS = 10_000;
/** How long a client may take to send a whole request, body included, in ms (generation is not counted). */
const REQUEST_TIMEOUT_MS = 30_000;

/** What a 500 says: the cause (a path, a stack, a policy's internals) goes to the log, not to the client. */
const INTERNAL_ERROR_MESSAGE = 'The server failed on this request; its log has the cause';

export const chatCompletionsServerOptionsSchema = z.object({
  /** The model id clients must send, and the one `GET /v1/models` lists. */
  modelName: z.string().min(1),
  /** Most requests in one `policy.generate` call. */
  maxBatchSize: z.number().int().positive().default(16),
  /** How long the first waiting request holds the batch open for others (0: until the next tick). */
  batchWindowMs: z.number().nonnegative().default(0),
  /** `max_tokens` when the client sends none. */
  defaultMaxTokens: z.number().int().positive().default(256),
  /** Largest request body accepted, in bytes. */
  maxBodyBytes: z.number().int().positive().default(1_000_000),
  /**
   * When set, clients must send `Authorization: Bearer <value of this variable>`; the value must
   * have at least 16 characters.
   */
  apiKeyEnv: z.string().min(1).optional(),
  /**
   * Host names (without port) the server answers to; the loopback names by default. `listen` adds
   * the address it binds to; `*` answers any Host (only behind a proxy that checks Host).
   */
  allowedHosts: z.array(z.string().min(1)).optional(),
  /** Origins (`scheme://host[:port]`) whose web pages may call the server; none by default. */
  allowedOrigins: z.array(z.string().min(1)).optional(),
  /** Open connections at most, over every client. */
  maxConnections: z.number().int().positive().default(256),
  /** Open connections at most from one client address. */
  maxConnectionsPerClient: z.number().int().positive().default(128),
  /** How long `close()` lets requests in flight finish before it cuts their connections, in ms. */
  shutdownTimeoutMs: z.number().int().nonnegative().max(MAX_TIMER_MS).default(10_000),
});
export type ChatCompletionsServerOptions = z.input<typeof chatCompletionsServerOptionsSchema> & {
  policy: Policy;
  /** How a token id is written in `logprobs.content[].token`; defaults to vLLM's `token_id:<id>`. */
  tokenText?: (tokenId: number) => string;
  /** Where `apiKeyEnv` is looked up; defaults to `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Where the causes of 500 answers go, one line (a stack) each; defaults to stderr. */
  log?: (line: string) => void;
};

export interface ChatCompletionsServer {
  /** Starts listening; resolves to the base URL clients use, e.g. `http://127.0.0.1:8000/v1`. Port 0 picks a free one. */
  listen(port?: number, host?: string): Promise<string>;
  /** Requests waiting for the next batch. */
  readonly queued: number;
  /**
   * Stops accepting connections, closes idle ones, lets requests in flight finish for up to
   * `shutdownTimeoutMs`, then destroys the connections left; resolves when all are closed.
   * Calling it again returns the same promise.
   */
  close(): Promise<void>;
  readonly httpServer: Server;
}

class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly code: string | null = null,
  ) {
    super(message);
  }
}

export function createChatCompletionsServer(options: ChatCompletionsServerOptions): ChatCompletionsServer {
  const {
    policy,
    tokenText = (id: number) => `token_id:${id}`,
    env = process.env,
    log = (line: string) => process.stderr.write(`${line}\n`),
    ...rest
  } = options;
  const config = parseOrThrow(chatCompletionsServerOptionsSchema, rest, 'chat-completions server options');
  // A missing or short key is a ConfigError here, at creation, rather than a server anyone can call.
  const token = config.apiKeyEnv === undefined ? undefined : tokenFromEnv(config.apiKeyEnv, env);
  const guard = new RequestGuard({
    ...(config.allowedHosts === undefined ? {} : { allowedHosts: config.allowedHosts }),
    ...(config.allowedOrigins === undefined ? {} : { allowedOrigins: config.allowedOrigins }),
    ...(token === undefined ? {} : { token }),
  });
  const created = Math.floor(Date.now() / 1000);
  let completionCounter = 0;
  const batcher = createRequestBatcher(policy, config);

  async function completions(body: ChatCompletionRequest): Promise<Completion> {
    if (body.model !== config.modelName) {
      throw new HttpProblem(
        404,
        'invalid_request_error',
        `The model ${quoted(body.model)} does not exist; this server serves "${config.modelName}"`,
        'model_not_found',
      );
    }
    const { stop, requests } = generateRequests(body, config.defaultMaxTokens);
    let results: GenerateResult[];
    try {
      results = await Promise.all(requests.map(batcher.generate));
    } catch (error) {
      // The policy's own argument checks (prompt too long, bad choices) are the client's to fix;
      // any other failure is the server's, answered 500 without its message.
      if (InvalidArgumentError.isInstance(error)) {
        throw new HttpProblem(
          400,
          'invalid_request_error',
          `The policy rejected the request: ${(error as Error).message}`,
        );
      }
      throw error;
    }
    completionCounter += 1;
    return chatCompletion(results, body, stop, {
      id: `chatcmpl-${completionCounter}`,
      model: config.modelName,
      systemFingerprint: `${policy.name}@${policy.version}`,
      tokenText,
    });
  }

  async function handle(
    request: IncomingMessage,
  ): Promise<{ status: number; body: unknown; events?: unknown[] }> {
    const refused = guard.check(request);
    if (refused !== undefined) {
      throw new HttpProblem(
        refused.status,
        'invalid_request_error',
        refused.message,
        refused.status === 401 ? 'invalid_api_key' : null,
      );
    }
    // parseRequest never throws: a target such as `//[` is the client's error (400), not a 500.
    const target = parseRequest(request);
    if (target === undefined) {
      throw new HttpProblem(400, 'invalid_request_error', 'The request target is not a path');
    }
    const { method, path } = target;
    if (path === '/v1/models') {
      if (method !== 'GET') throw new HttpProblem(405, 'invalid_request_error', 'Use GET /v1/models');
      return {
        status: 200,
        body: {
          object: 'list',
          data: [{ id: config.modelName, object: 'model', created, owned_by: 'pilotrl' }],
        },
      };
    }
    if (path === '/v1/chat/completions') {
      if (method !== 'POST')
        throw new HttpProblem(405, 'invalid_request_error', 'Use POST /v1/chat/completions');
      const body = await readCompletionRequest(request, config.maxBodyBytes);
      const completion = await completions(body);
      if (body.stream) {
        return {
          status: 200,
          body: null,
          events: streamEvents(completion, body.stream_options?.include_usage ?? false),
        };
      }
      return { status: 200, body: completion };
    }
    // The method and path are the client's: quoted and cut so an answer cannot carry much of them.
    throw new HttpProblem(
      404,
      'invalid_request_error',
      `No route ${quoted(method)} ${quoted(path)}; this server has POST /v1/chat/completions and GET /v1/models`,
    );
  }

  let closing: Promise<void> | undefined;

  // Header and body deadlines are checked every `connectionsCheckingInterval` (Node's default: 30 s).
  const httpServer = createServer(
    { connectionsCheckingInterval: 1000 },
    (request: IncomingMessage, response: ServerResponse) => {
      handle(request)
        .then(({ status, body, events }) => {
          // An answer written after close() began ends its connection, which would otherwise stay
          // open as an idle keep-alive one until the deadline.
          if (closing !== undefined) response.setHeader('connection', 'close');
          if (events) sendEvents(response, events);
          else send(response, status, body);
        })
        .catch((error: unknown) => {
          const problem = problemOf(error, log);
          if (closing !== undefined) response.setHeader('connection', 'close');
          if (problem.status === 401) response.setHeader('www-authenticate', 'Bearer');
          send(response, problem.status, {
            error: { message: problem.message, type: problem.type, param: null, code: problem.code },
          });
        });
    },
  );
  // Headers and bodies that trickle in are cut, and connections are capped in total and per
  // client, so slow or many sockets cannot hold the server's memory or lock other clients out.
  httpServer.headersTimeout = HEADERS_TIMEOUT_MS;
  httpServer.requestTimeout = REQUEST_TIMEOUT_MS;
  capConnections(httpServer, {
    maxConnections: config.maxConnections,
    maxConnectionsPerClient: config.maxConnectionsPerClient,
  });

  return {
    httpServer,
    get queued() {
      return batcher.queued;
    },
    listen(port = 0, host = '127.0.0.1') {
      // A server bound to a specific address answers Host headers naming it.
      guard.allowHost(host);
      return listenOn(httpServer, port, host);
    },
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        const deadline = setTimeout(() => httpServer.closeAllConnections(), config.shutdownTimeoutMs);
        httpServer.close((error) => {
          clearTimeout(deadline);
          if (error) reject(error);
          else resolve();
        });
        httpServer.closeIdleConnections();
      });
      return closing;
    },
  };
}

/**
 * The `n` generation requests of a chat completion request (seeds `seed`, `seed + 1`, ... when
 * given), and its stop strings.
 */
export function generateRequests(
  body: ChatCompletionRequest,
  defaultMaxTokens: number,
): { stop: string[]; requests: GenerateRequest[] } {
  const messages: ChatMessage[] = body.messages.map((message) => ({
    role: message.role === 'developer' ? 'system' : message.role,
    content:
      typeof message.content === 'string'
        ? message.content
        : message.content.map((part) => part.text).join(''),
  }));
  const stop = body.stop == null ? [] : typeof body.stop === 'string' ? [body.stop] : body.stop;
  const count = body.n ?? 1;
  const requests: GenerateRequest[] = Array.from({ length: count }, (_, index) => ({
    messages,
    maxTokens: body.max_completion_tokens ?? body.max_tokens ?? defaultMaxTokens,
    temperature: body.temperature ?? 1,
    topP: body.top_p ?? 1,
    stop,
    ...(body.seed == null ? {} : { seed: body.seed + index }),
    ...(body.guided_choice === undefined ? {} : { choices: body.guided_choice }),
  }));
  return { stop, requests };
}

export interface CompletionIdentity {
  /** `chatcmpl-<n>`. */
  id: string;
  model: string;
  systemFingerprint: string;
  tokenText: (tokenId: number) => string;
}

/**
 * The OpenAI `chat.completion` answer for `results` (one per choice): the matched stop string cut
 * from the text unless asked for, logprobs and token ids when asked for, usage.
 */
export function chatCompletion(
  results: readonly GenerateResult[],
  body: ChatCompletionRequest,
  stop: readonly string[],
  identity: CompletionIdentity,
): Completion {
  const choices = results.map((result, index) => {
    const matchedStop =
      result.finishReason === 'stop' ? stop.find((candidate) => result.text.endsWith(candidate)) : undefined;
    const content =
      matchedStop !== undefined && !body.include_stop_str_in_output
        ? result.text.slice(0, result.text.length - matchedStop.length)
        : result.text;
    const hasTokens = result.tokenIds.length > 0 && result.logprobs.length === result.tokenIds.length;
    return {
      index,
      message: { role: 'assistant', content },
      logprobs: body.logprobs
        ? {
            content: hasTokens
              ? result.tokenIds.map((id, position) => ({
                  token: identity.tokenText(id),
                  logprob: result.logprobs[position]!,
                  bytes: null,
                  top_logprobs: [],
                }))
              : null,
          }
        : null,
      finish_reason: result.finishReason === 'length' ? 'length' : 'stop',
      stop_reason: matchedStop ?? null,
      ...(body.return_token_ids ? { token_ids: result.tokenIds } : {}),
    };
  });
  const promptTokens = results[0]?.promptTokenIds.length ?? 0;
  const completionTokens = results.reduce((sum, result) => sum + result.tokenIds.length, 0);
  return {
    id: identity.id,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: identity.model,
    system_fingerprint: identity.systemFingerprint,
    choices,
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    },
    ...(body.return_token_ids ? { prompt_token_ids: results[0]?.promptTokenIds ?? [] } : {}),
  };
}

/** The body of a chat completion request: JSON, at most `maxBodyBytes`, valid; else an HttpProblem. */
async function readCompletionRequest(
  request: IncomingMessage,
  maxBodyBytes: number,
): Promise<ChatCompletionRequest> {
  // A cross-origin page may POST text/plain without a preflight; JSON alone keeps it out even
  // where the Origin check is loosened.
  if (!isJson(request.headers['content-type'])) {
    throw new HttpProblem(415, 'invalid_request_error', 'Send the body as Content-Type: application/json');
  }
  let text: string;
  try {
    text = await readBody(request, maxBodyBytes);
  } catch (error) {
    if (error instanceof BodyTooLargeError) {
      throw new HttpProblem(
        413,
        'invalid_request_error',
        `Request body larger than ${maxBodyBytes} bytes; send fewer or shorter messages`,
      );
    }
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new HttpProblem(400, 'invalid_request_error', 'The request body is not valid JSON');
  }
  const parsed = chatCompletionRequestSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`,
    );
    throw new HttpProblem(
      400,
      'invalid_request_error',
      `Invalid chat completion request: ${problems.join('; ')}`,
    );
  }
  return parsed.data;
}

/** The answer to a failed request: its own HttpProblem, or a 500 whose cause goes to `log` only. */
function problemOf(error: unknown, log: (line: string) => void): HttpProblem {
  if (error instanceof HttpProblem) return error;
  // The message of an unexpected error may hold a path, a secret or a policy's internals.
  log(
    `@pilotrl/llm chat-completions server: request failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  return new HttpProblem(500, 'server_error', INTERNAL_ERROR_MESSAGE);
}

/** Listens on `host:port`; resolves to the base URL, or rejects with a one-line reason. */
function listenOn(httpServer: Server, port: number, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    httpServer.once('error', (error: NodeJS.ErrnoException) => {
      // The address is the caller's choice: say what is wrong with it in one line.
      const why =
        error.code === 'EADDRINUSE'
          ? 'the port is in use (choose another, or 0 for a free one)'
          : error.code === 'EACCES'
            ? 'permission denied (ports below 1024 need privileges)'
            : `${error.code ?? 'error'}: ${error.message}`;
      reject(new InvalidArgumentError(`cannot listen on ${host}:${port}: ${why}`, { cause: error }));
    });
    httpServer.listen(port, host, () => {
      httpServer.removeAllListeners('error');
      const address = httpServer.address() as AddressInfo;
      const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve(`http://${shownHost}:${address.port}/v1`);
    });
  });
}

export type Completion = {
  id: string;
  object: string;
  created: number;
  model: string;
  system_fingerprint: string;
  choices: {
    index: number;
    message: { role: string; content: string };
    logprobs: unknown;
    finish_reason: string;
    stop_reason: string | null;
    token_ids?: number[];
  }[];
  usage: unknown;
};

/**
 * The completion as `chat.completion.chunk` events: per choice a role chunk, one content chunk
 * (with its logprobs and token ids) and a finish chunk; then usage when asked for.
 */
function streamEvents(completion: Completion, includeUsage: boolean): unknown[] {
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({
    id: completion.id,
    object: 'chat.completion.chunk',
    created: completion.created,
    model: completion.model,
    system_fingerprint: completion.system_fingerprint,
    choices,
    ...extra,
  });
  const events: unknown[] = completion.choices.flatMap((choice) => [
    chunk([
      { index: choice.index, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null },
    ]),
    chunk([
      {
        index: choice.index,
        delta: { content: choice.message.content },
        logprobs: choice.logprobs,
        finish_reason: null,
        ...(choice.token_ids === undefined ? {} : { token_ids: choice.token_ids }),
      },
    ]),
    chunk([
      {
        index: choice.index,
        delta: {},
        logprobs: null,
        finish_reason: choice.finish_reason,
        stop_reason: choice.stop_reason,
      },
    ]),
  ]);
  if (includeUsage) events.push(chunk([], { usage: completion.usage }));
  return events;
}

function sendEvents(response: ServerResponse, events: readonly unknown[]) {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const event of events) response.write(`data: ${JSON.stringify(event)}\n\n`);
  response.end('data: [DONE]\n\n');
}

function send(response: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

/** Whether a Content-Type names JSON (`application/json`, parameters such as `; charset=utf-8` allowed). */
function isJson(contentType: string | undefined): boolean {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase() === 'application/json';
}
