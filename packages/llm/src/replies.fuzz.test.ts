// Fuzzing of the chat client with broken model replies from a raw HTTP server: truncated JSON, an
// empty body, every field of a completion given a wrong type, mismatched token ids and logprobs,
// 5 MB bodies, bytes that are not UTF-8, HTML with status 200, error statuses with odd bodies and
// Retry-After headers. `chat` and `generate` resolve with a well-formed result, or reject with an
// LlmRequestError or LlmResponseError whose message is one line without a stack frame, after at
// most retry.maxRetries + 1 attempts.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRng, generateResultSchema, PilotRLError, type Rng } from '@pilotrl/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatClient } from './chat-client';
import { LlmRequestError, LlmResponseError } from './errors';

/** What the server answers: status, headers and body bytes. */
interface Reply {
  status: number;
  headers: Record<string, string>;
  body: Buffer | string;
}

let reply: Reply = { status: 200, headers: {}, body: '' };
let hits = 0;
let baseUrl: string;
const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    hits++;
    response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    response.end(reply.body);
  });
});
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const CONTROL = /(?![\n\t])\p{Cc}/u;

const completion = (content: unknown = 'go north') => ({
  id: 'c1',
  model: 'm',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content },
      finish_reason: 'stop',
      logprobs: {
        content: [
          { token: 'go', logprob: -0.5 },
          { token: ' north', logprob: -0.25 },
        ],
      },
      token_ids: [11, 12],
    },
  ],
  prompt_token_ids: [1, 2, 3],
  usage: { prompt_tokens: 3, completion_tokens: 2 },
});

/** Wrong values for a field: other types, out of range, huge. */
const wrongValues: unknown[] = [
  null,
  'x',
  5,
  -1,
  1.5,
  true,
  {},
  [],
  ['a'],
  [-1],
  [1.5],
  { content: 'x' },
  'é\u0000\u009b',
  Array.from({ length: 10_000 }, () => ({ token: 'x', logprob: 'y' })),
];

/** Every path into a completion, so that each field in turn gets a wrong value. */
function fieldPaths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (typeof value !== 'object' || value === null) return [prefix];
  const keys: (string | number)[] = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
  return [
    prefix,
    ...keys.flatMap((key) => fieldPaths((value as Record<string, unknown>)[key], [...prefix, key])),
  ];
}

function withField(path: (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const copy = structuredClone(completion()) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path.at(-1)!] = value;
  return copy;
}

const json = (body: unknown, status = 200, headers: Record<string, string> = {}): Reply => ({
  status,
  headers,
  body: JSON.stringify(body),
});

const randomBytes = (rng: Rng, length: number) => Buffer.from(Array.from({ length }, () => rng.int(256)));

/** A broken (or sometimes sound) reply, and what it is. */
function randomReply(rng: Rng): { what: string; reply: Reply } {
  const whole = JSON.stringify(completion());
  switch (rng.int(10)) {
    case 0: {
      const at = rng.int(whole.length);
      return { what: `cut at ${at}`, reply: { status: 200, headers: {}, body: whole.slice(0, at) } };
    }
    case 1:
    case 2:
    case 3: {
      const path = rng.pick(fieldPaths(completion()));
      const value = rng.pick(wrongValues);
      return {
        what: `${path.join('.') || '(root)'} = ${JSON.stringify(value).slice(0, 30)}`,
        reply: json(withField(path, value)),
      };
    }
    case 4: {
      // Token ids and logprobs that do not line up.
      const body = completion();
      body.choices[0]!.token_ids = Array.from({ length: rng.int(5) }, (_, i) => i);
      return { what: `${body.choices[0]!.token_ids.length} token ids for 2 logprobs`, reply: json(body) };
    }
    case 5: {
      // 5 MB now and then, 64 KB otherwise: the large bodies cost most of the run's time.
      const size = rng.int(3) === 0 ? '5 MB' : '64 KB';
      const text = 'w'.repeat(size === '5 MB' ? 5 * 2 ** 20 : 2 ** 16);
      const huge = rng.pick(['content', 'garbage', 'error'] as const);
      if (huge === 'content') return { what: `${size} of content`, reply: json(completion(text)) };
      if (huge === 'error') return { what: `${size} error`, reply: json({ error: { message: text } }, 500) };
      return { what: `${size} not JSON`, reply: { status: 200, headers: {}, body: text } };
    }
    case 6:
      return {
        what: 'bytes that are not UTF-8',
        reply: rng.pick([
          { status: 200, headers: {}, body: randomBytes(rng, rng.int(300)) },
          {
            status: 200,
            headers: {},
            body: Buffer.concat([
              Buffer.from(whole.slice(0, 60)),
              Buffer.from([0xff, 0xfe, 0xc3]),
              Buffer.from(whole.slice(60)),
            ]),
          },
        ]),
      };
    case 7:
      return {
        what: 'HTML with status 200',
        reply: {
          status: 200,
          headers: { 'content-type': 'text/html' },
          body: '<html><body>\u0007Bad gateway</body></html>',
        },
      };
    case 8: {
      const status = rng.pick([400, 401, 404, 429, 500, 502, 503]);
      const retryAfter = rng.pick(['-1', 'abc', '99999999999', '0.001', 'Wed, 21 Oct 2015 07:28:00 GMT', '']);
      const body = rng.pick<string | Buffer>([
        '',
        '<h1>oops</h1>',
        '{"error": 5}',
        '{"error": {"message": "\u0000\u001b[31mred"}}',
        randomBytes(rng, 64),
      ]);
      return {
        what: `HTTP ${status}, Retry-After ${JSON.stringify(retryAfter)}`,
        reply: { status, headers: { 'retry-after': retryAfter }, body },
      };
    }
    default:
      return rng.pick([
        { what: 'empty body', reply: { status: 200, headers: {}, body: '' } },
        { what: 'a sound completion', reply: json(completion()) },
        { what: 'content with control characters', reply: json(completion('go\u0000 north\u009b\n')) },
        {
          what: 'deeply nested JSON',
          reply: { status: 200, headers: {}, body: `${'['.repeat(100_000)}${']'.repeat(100_000)}` },
        },
        { what: 'no content', reply: json(withField(['choices', 0, 'message', 'content'], null)) },
      ]);
  }
}

/** What is wrong with how a call ended, or undefined when it is within the contract. */
function outcomeProblem(
  outcome: { value?: unknown; error?: unknown },
  generate: boolean,
): string | undefined {
  if ('error' in outcome) {
    const error = outcome.error as Error;
    if (!LlmRequestError.isInstance(error) && !LlmResponseError.isInstance(error))
      return PilotRLError.isInstance(error)
        ? `threw a ${error.name}: ${error.message}`
        : `threw ${error.stack}`;
    if (error.message.includes('\n'))
      return `message of several lines: ${JSON.stringify(error.message.slice(0, 300))}`;
    if (error.message.length > 2000) return `message is ${error.message.length} characters long`;
    if (CONTROL.test(error.message))
      return `message quotes control characters: ${JSON.stringify(error.message.slice(0, 300))}`;
    return undefined;
  }
  if (generate) {
    const [result] = outcome.value as unknown[];
    const parsed = generateResultSchema.safeParse(result);
    if (!parsed.success) return 'generate resolved with a malformed result';
    if (parsed.data.tokenIds.length !== parsed.data.logprobs.length)
      return 'token ids and logprobs differ in length';
    return undefined;
  }
  const response = outcome.value as { text: unknown; finishReason: unknown; tokenIds: unknown };
  if (typeof response.text !== 'string' || typeof response.finishReason !== 'string')
    return 'chat resolved with a malformed response';
  if (response.tokenIds !== undefined && !Array.isArray(response.tokenIds))
    return 'chat resolved with token ids that are not a list';
  return undefined;
}

describe('model reply fuzz', () => {
  it('chat and generate resolve well-formed or reject with one line, within the retries (200 cases)', async () => {
    const rng = createRng('llm-reply-fuzz');
    const failures: string[] = [];
    for (let i = 0; i < 200; i++) {
      const { what, reply: next } = randomReply(rng);
      reply = next;
      hits = 0;
      const maxRetries = rng.int(4);
      const client = createChatClient(
        {
          baseUrl,
          model: 'm',
          dialect: rng.pick(['openai', 'vllm'] as const),
          retry: { maxRetries, maxDelayMs: 1000 },
        },
        { sleep: async () => undefined },
      );
      const generate = rng.int(2) === 0;
      const messages = [{ role: 'user' as const, content: 'where now?' }];
      // A third of the generate calls pick among choices, which the sound reply's content is one of.
      const choices = rng.int(3) === 0 ? { choices: ['go north', 'go south'] } : {};
      const outcome = await (generate
        ? client.generate([{ messages, ...choices }])
        : client.chat({ messages, logprobs: true })
      ).then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      );
      const problem = outcomeProblem(outcome, generate);
      if (problem !== undefined)
        failures.push(`case ${i} (${what}, ${generate ? 'generate' : 'chat'}): ${problem}`);
      // Each of the (up to 3) choice attempts has its own retries.
      const attempts = (maxRetries + 1) * ('choices' in choices && generate ? 3 : 1);
      if (hits > attempts)
        failures.push(`case ${i} (${what}): ${hits} attempts with maxRetries ${maxRetries}`);
    }
    expect(failures.slice(0, 5)).toEqual([]);
  }, 30_000);
});
