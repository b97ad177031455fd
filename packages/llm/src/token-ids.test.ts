import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createChatClient } from './chat-client';
import { findTokenDrift, TokenDriftError, type Tokenizer } from './token-ids';
import type { LlmEvent } from './transport';

/** A toy tokenizer over "a", "b", " " that reads "ab" as one token, as BPE merges do. */
const VOCAB = ['<bos>', 'a', 'b', ' ', 'ab'];
const BOS = 0;
const toyTokenizer: Tokenizer = {
  async encode(text) {
    const ids: number[] = [];
    for (let at = 0; at < text.length; ) {
      const id = text.startsWith('ab', at) ? 4 : VOCAB.indexOf(text[at]!);
      if (id < 0) throw new Error(`toy tokenizer: no token for ${text[at]}`);
      ids.push(id);
      at += VOCAB[id]!.length;
    }
    return ids;
  },
  async decode(ids) {
    return ids.map((id) => VOCAB[id]).join('');
  },
};

describe('findTokenDrift', () => {
  it('passes sampled ids that survive a decode and re-encode', async () => {
    const { drift } = await findTokenDrift({ text: 'ab a', tokenIds: [4, 3, 1] }, toyTokenizer);
    expect(drift).toBeUndefined();
  });

  it('reports sampled ids whose text re-encodes to other ids', async () => {
    // The model sampled "a" then "b"; the tokenizer reads their text back as the one token "ab".
    const { drift } = await findTokenDrift({ text: 'ab', tokenIds: [1, 2] }, toyTokenizer);
    expect(drift?.kind).toBe('ids');
    expect(drift?.detail).toMatch(/differ from token 0 on \(sampled 1, encoded 4\)/);
  });

  it('reports sampled token strings that the text does not encode back to', async () => {
    const { drift, tokenIds } = await findTokenDrift({ text: 'ab', tokens: ['a', 'b'] }, toyTokenizer);
    expect(drift?.kind).toBe('count');
    expect(tokenIds).toEqual([4]);
    expect(
      (await findTokenDrift({ text: 'ab b', tokens: ['ab', ' ', 'b'] }, toyTokenizer)).drift,
    ).toBeUndefined();
  });
});

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/**
 * A fake llama-cpp-python server: chat completions answer `content` with the sampled `tokens` as
 * logprobs (strings, no ids, as llama.cpp spells them); `/extras/tokenize` encodes with the toy
 * tokenizer and a begin-of-sequence token first, as llama.cpp does. Records the request bodies.
 */
async function fakeLlamaCpp(content: string, tokens: string[]) {
  const bodies: Record<string, unknown>[] = [];
  const server = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk: Buffer) => {
      raw += chunk;
    });
    request.on('end', async () => {
      const body = JSON.parse(raw || '{}') as Record<string, unknown>;
      bodies.push({ path: request.url, ...body });
      let reply: unknown;
      if (request.url === '/extras/tokenize') {
        reply = { tokens: [BOS, ...(await toyTokenizer.encode(body.input as string))] };
      } else if (request.url === '/extras/detokenize') {
        reply = { text: await toyTokenizer.decode(body.tokens as number[]) };
      } else {
        reply = {
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content },
              finish_reason: 'stop',
              logprobs: { content: tokens.map((token) => ({ token, logprob: -0.5, bytes: null })) },
            },
          ],
        };
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, bodies };
}

const request = { messages: [{ role: 'user' as const, content: 'Go.' }], maxTokens: 8 };

describe("the chat client's token ids from llama.cpp's tokenizer", () => {
  it('gives the server tokenizer ids, without its begin-of-sequence token, with the sampled logprobs', async () => {
    const { baseUrl, bodies } = await fakeLlamaCpp('ab b', ['ab', ' ', 'b']);
    const client = createChatClient({ baseUrl, model: 'm', dialect: 'llama-cpp', tokenIds: 'retokenize' });
    const [result] = await client.generate([request]);
    expect(result).toMatchObject({ text: 'ab b', tokenIds: [4, 3, 2], logprobs: [-0.5, -0.5, -0.5] });
    // llama.cpp's own sampling filters are off, so the logprobs describe what was sampled.
    expect(bodies.find((body) => body.path === '/v1/chat/completions')).toMatchObject({
      top_k: 0,
      min_p: 0,
      repeat_penalty: 1,
    });
  });

  it('fails on re-tokenization drift instead of returning ids the model did not sample', async () => {
    const { baseUrl } = await fakeLlamaCpp('ab', ['a', 'b']);
    const client = createChatClient({ baseUrl, model: 'm', dialect: 'llama-cpp', tokenIds: 'retokenize' });
    const failure = await client.generate([request]).catch((error: unknown) => error);
    expect(TokenDriftError.isInstance(failure)).toBe(true);
    expect((failure as TokenDriftError).drift.kind).toBe('count');
    expect((failure as Error).message).toMatch(/re-tokenization drift \(count\): the model sampled 2 tokens/);
  });

  it("with onTokenDrift: 'drop', returns no ids for a drifted sample and counts it", async () => {
    const { baseUrl } = await fakeLlamaCpp('ab', ['a', 'b']);
    const events: LlmEvent[] = [];
    const client = createChatClient(
      { baseUrl, model: 'm', dialect: 'llama-cpp', tokenIds: 'retokenize', onTokenDrift: 'drop' },
      { onEvent: (event) => events.push(event) },
    );
    const [result] = await client.generate([request]);
    expect(result).toMatchObject({ text: 'ab', tokenIds: [], logprobs: [] });
    expect(client.tokenDrifts).toBe(1);
    expect(events).toMatchObject([{ type: 'token_drift', kind: 'count' }]);
  });

  it('asks llama.cpp for a choice through a grammar of the choices', async () => {
    const { baseUrl, bodies } = await fakeLlamaCpp('put "a" in b', ['put']);
    const client = createChatClient({ baseUrl, model: 'm', dialect: 'llama-cpp' });
    const [result] = await client.generate([{ ...request, choices: ['go north', 'put "a" in b'] }]);
    expect(result?.choiceIndex).toBe(1);
    expect(bodies[0]?.grammar).toBe('root ::= "go north" | "put \\"a\\" in b"');
  });

  it('refuses tokenIds: retokenize without a server tokenizer', () => {
    expect(() =>
      createChatClient({ baseUrl: 'http://127.0.0.1:1/v1', model: 'm', tokenIds: 'retokenize' }),
    ).toThrow(/only dialect 'llama-cpp' has/);
  });
});
