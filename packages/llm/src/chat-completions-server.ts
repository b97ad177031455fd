// Serves any core `Policy` behind the OpenAI chat-completions API (`POST /v1/chat/completions`,
// `GET /v1/models`) with node:http. Concurrent requests are gathered into batches so a batched
// policy (e.g. a tfjs model) makes one `generate` call for many clients; batches run one at a time.
// `close()` is bounded: requests in flight get `shutdownTimeoutMs` to finish, then their connections
// are cut, so neither a hung policy nor a client holding its connection can keep the server alive.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type ChatMessage,
  ConfigError,
  type GenerateRequest,
  type GenerateResult,
  InvalidArgumentError,
  type Policy,
  parseOrThrow,
} from '@pilotrl/core';
import { z } from 'zod';
import { type ChatCompletionRequest, chatCompletionRequestSchema } from './openai-wire';

/** The longest delay `setTimeout` keeps; a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

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
  /** When set, clients must send `Authorization: Bearer <value of this variable>`. */
  apiKeyEnv: z.string().min(1).optional(),
  /** How long `close()` lets requests in flight finish before it cuts their connections, in ms. */
  shutdownTimeoutMs: z.number().int().nonnegative().max(MAX_TIMER_MS).default(10_000),
});
export type ChatCompletionsServerOptions = z.input<typeof chatCompletionsServerOptionsSchema> & {
  policy: Policy;
  /** How a token id is written in `logprobs.content[].token`; defaults to vLLM's `token_id:<id>`. */
  tokenText?: (tokenId: number) => string;
  /** Where `apiKeyEnv` is looked up; defaults to `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
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

interface Pending {
  request: GenerateRequest;
  resolve: (result: GenerateResult) => void;
  reject: (error: unknown) => void;
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
  const { policy, tokenText = (id: number) => `token_id:${id}`, env = process.env, ...rest } = options;
  const config = parseOrThrow(chatCompletionsServerOptionsSchema, rest, 'chat-completions server options');
  const requiredKey = config.apiKeyEnv === undefined ? undefined : env[config.apiKeyEnv];
  if (config.apiKeyEnv !== undefined && (requiredKey === undefined || requiredKey === '')) {
    throw new ConfigError(
      `Environment variable ${config.apiKeyEnv} (apiKeyEnv) is not set; export the key clients must send`,
    );
  }
  const created = Math.floor(Date.now() / 1000);
  let completionCounter = 0;

  const pending: Pending[] = [];
  let draining = false;
  let scheduled = false;

  const schedule = () => {
    if (scheduled || draining) return;
    scheduled = true;
    const start = () => {
      scheduled = false;
      void drain();
    };
    if (config.batchWindowMs > 0) setTimeout(start, config.batchWindowMs);
    else setImmediate(start);
  };

  async function drain() {
    draining = true;
    while (pending.length > 0) {
      const batch = pending.splice(0, config.maxBatchSize);
      try {
        await runBatch(batch);
      } catch (error) {
        if (batch.length === 1) {
          batch[0]!.reject(error);
          continue;
        }
        // One bad request (say, a prompt too long for the model) must not fail its neighbours:
        // run them one by one so the error reaches only the request that caused it.
        for (const item of batch) {
          try {
            await runBatch([item]);
          } catch (single) {
            item.reject(single);
          }
        }
      }
    }
    draining = false;
  }

  async function runBatch(batch: readonly Pending[]) {
    const results = await policy.generate(batch.map((item) => item.request));
    if (results.length !== batch.length) {
      throw new Error(
        `policy ${policy.name} returned ${results.length} results for ${batch.length} requests`,
      );
    }
    for (const [index, item] of batch.entries()) item.resolve(results[index]!);
  }

  const generate = (request: GenerateRequest) =>
    new Promise<GenerateResult>((resolve, reject) => {
      pending.push({ request, resolve, reject });
      schedule();
    });

  async function completions(body: ChatCompletionRequest) {
    if (body.model !== config.modelName) {
      throw new HttpProblem(
        404,
        'invalid_request_error',
        `The model "${body.model}" does not exist; this server serves "${config.modelName}"`,
        'model_not_found',
      );
    }
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
      maxTokens: body.max_completion_tokens ?? body.max_tokens ?? config.defaultMaxTokens,
      temperature: body.temperature ?? 1,
      topP: body.top_p ?? 1,
      stop,
      ...(body.seed == null ? {} : { seed: body.seed + index }),
      ...(body.guided_choice === undefined ? {} : { choices: body.guided_choice }),
    }));
    let results: GenerateResult[];
    try {
      results = await Promise.all(requests.map(generate));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // The policy's own argument checks (prompt too long, bad choices) are the client's to fix.
      if (InvalidArgumentError.isInstance(error)) {
        throw new HttpProblem(400, 'invalid_request_error', `The policy rejected the request: ${message}`);
      }
      throw new HttpProblem(500, 'server_error', `The policy failed: ${message}`);
    }
    const choices = results.map((result, index) => {
      const matchedStop =
        result.finishReason === 'stop'
          ? stop.find((candidate) => result.text.endsWith(candidate))
          : undefined;
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
                    token: tokenText(id),
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
    completionCounter += 1;
    return {
      id: `chatcmpl-${completionCounter}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: config.modelName,
      system_fingerprint: `${policy.name}@${policy.version}`,
      choices,
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
      },
      ...(body.return_token_ids ? { prompt_token_ids: results[0]?.promptTokenIds ?? [] } : {}),
    };
  }

  async function handle(
    request: IncomingMessage,
  ): Promise<{ status: number; body: unknown; events?: unknown[] }> {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname.replace(/\/+$/, '');
    if (requiredKey !== undefined && request.headers.authorization !== `Bearer ${requiredKey}`) {
      throw new HttpProblem(
        401,
        'invalid_request_error',
        'Missing or wrong API key in the Authorization header',
        'invalid_api_key',
      );
    }
    if (path === '/v1/models') {
      if (request.method !== 'GET') throw new HttpProblem(405, 'invalid_request_error', 'Use GET /v1/models');
      return {
        status: 200,
        body: {
          object: 'list',
          data: [{ id: config.modelName, object: 'model', created, owned_by: 'pilotrl' }],
        },
      };
    }
    if (path === '/v1/chat/completions') {
      if (request.method !== 'POST')
        throw new HttpProblem(405, 'invalid_request_error', 'Use POST /v1/chat/completions');
      const text = await readBody(request, config.maxBodyBytes);
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
      const completion = await completions(parsed.data);
      if (parsed.data.stream) {
        return {
          status: 200,
          body: null,
          events: streamEvents(completion, parsed.data.stream_options?.include_usage ?? false),
        };
      }
      return { status: 200, body: completion };
    }
    throw new HttpProblem(
      404,
      'invalid_request_error',
      `No route ${request.method} ${path}; this server has POST /v1/chat/completions and GET /v1/models`,
    );
  }

  let closing: Promise<void> | undefined;

  const httpServer = createServer((request: IncomingMessage, response: ServerResponse) => {
    handle(request)
      .then(({ status, body, events }) => {
        // An answer written after close() began ends its connection, which would otherwise stay
        // open as an idle keep-alive one until the deadline.
        if (closing !== undefined) response.setHeader('connection', 'close');
        if (events) sendEvents(response, events);
        else send(response, status, body);
      })
      .catch((error: unknown) => {
        const problem =
          error instanceof HttpProblem
            ? error
            : new HttpProblem(500, 'server_error', error instanceof Error ? error.message : String(error));
        if (closing !== undefined) response.setHeader('connection', 'close');
        send(response, problem.status, {
          error: { message: problem.message, type: problem.type, param: null, code: problem.code },
        });
      });
  });

  return {
    httpServer,
    get queued() {
      return pending.length;
    },
    listen(port = 0, host = '127.0.0.1') {
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

type Completion = {
  id: string;
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

function readBody(request: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        // Stop buffering but keep reading, so the 413 answer still reaches the client.
        request.removeAllListeners('data');
        request.resume();
        reject(new HttpProblem(413, 'invalid_request_error', `Request body larger than ${limit} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}
