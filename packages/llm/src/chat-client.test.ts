import type { Policy, ResolvedGenerateRequest } from '@pilotrl/core';
import { createScriptedPolicy } from '@pilotrl/env-testkit/test';
import { afterEach, describe, expect, it } from 'vitest';
import { createChatClient } from './chat-client';
import { createChatCompletionsServer } from './chat-completions-server';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function serve(
  respond: (request: ResolvedGenerateRequest, call: number) => string,
  serverOptions: { tokenText?: (id: number) => string } = {},
) {
  const policy = createScriptedPolicy(respond, { version: 3 });
  const server = createChatCompletionsServer({ policy, modelName: 'scripted-model', ...serverOptions });
  const baseUrl = await server.listen(0, '127.0.0.1');
  closers.push(() => server.close());
  return { policy, baseUrl };
}

const ask = (content: string) => [{ role: 'user' as const, content }];

describe('chat client against the local chat-completions server', () => {
  it('generates text, keeps the stop string, and returns token ids and logprobs with the vllm dialect', async () => {
    const { baseUrl, policy } = await serve(
      () => '<thought>look</thought><action>go north</action> trailing',
    );
    const client = createChatClient({ baseUrl, model: 'scripted-model', dialect: 'vllm' });
    const [result] = await client.generate([
      { messages: ask('where?'), stop: ['</action>'], seed: 7, temperature: 0.5 },
    ]);
    const expected = '<thought>look</thought><action>go north</action>';
    expect(result!.text).toBe(expected);
    expect(result!.finishReason).toBe('stop');
    expect(result!.tokenIds).toEqual([...expected].map((char) => char.charCodeAt(0)));
    expect(result!.logprobs).toEqual(result!.tokenIds.map(() => 0));
    expect(result!.promptTokenIds.length).toBeGreaterThan(0);
    expect(policy.requests[0]).toMatchObject({ seed: 7, temperature: 0.5, stop: ['</action>'] });
  });

  it('restores a single stop string with the plain openai dialect and leaves ids empty', async () => {
    const { baseUrl } = await serve(() => 'Step 1: go</global_plan> more', {
      tokenText: (id: number) => String.fromCharCode(id),
    });
    const client = createChatClient({ baseUrl, model: 'scripted-model' });
    const [result] = await client.generate([{ messages: ask('plan'), stop: ['</global_plan>'] }]);
    expect(result!.text).toBe('Step 1: go</global_plan>');
    expect(result!.tokenIds).toEqual([]);
    expect(result!.logprobs).toEqual([]);
  });

  it('reads token ids from token_id:N logprob tokens when token_ids are not sent', async () => {
    const { baseUrl } = await serve(() => 'ok');
    const client = createChatClient({ baseUrl, model: 'scripted-model' });
    const [result] = await client.generate([{ messages: ask('hi') }]);
    expect(result!.tokenIds).toEqual([111, 107]);
    expect(result!.logprobs).toEqual([0, 0]);
  });

  it('reports length when maxTokens cuts the reply, whichever field carries the limit', async () => {
    const { baseUrl } = await serve(() => 'abcdefghij');
    for (const maxTokensField of ['max_tokens', 'max_completion_tokens'] as const) {
      const client = createChatClient({ baseUrl, model: 'scripted-model', dialect: 'vllm', maxTokensField });
      const [result] = await client.generate([{ messages: ask('x'), maxTokens: 4 }]);
      expect(result).toMatchObject({ text: 'abcd', finishReason: 'length' });
    }
  });

  it('constrains to choices by asking and validating, retrying answers that are none of them', async () => {
    const answers = ['I think north is best', '2. go south'];
    const { baseUrl, policy } = await serve((_request, call) => answers[call] ?? 'unused');
    const client = createChatClient({ baseUrl, model: 'scripted-model' });
    const [result] = await client.generate([
      { messages: ask('which way?'), choices: ['go north', 'go south'], seed: 1 },
    ]);
    expect(result).toMatchObject({ text: 'go south', choiceIndex: 1, finishReason: 'choice' });
    expect(policy.requests).toHaveLength(2);
    expect(policy.requests[0]!.messages.at(-1)!.content).toContain('1. go north\n2. go south');
    expect(policy.requests[1]!.seed).toBe(2);
  });

  it('gives up with a clear error when no answer names a choice', async () => {
    const { baseUrl } = await serve(() => 'maybe');
    const client = createChatClient({ baseUrl, model: 'scripted-model', choiceAttempts: 2 });
    await expect(client.generate([{ messages: ask('?'), choices: ['a', 'b'] }])).rejects.toThrow(
      /answered none of the 2 choices in 2 attempts \(last answer: "maybe"\)/,
    );
  });

  it('passes guided_choice with the vllm dialect so the server policy decodes exactly one choice', async () => {
    const { baseUrl, policy } = await serve((request) => request.choices![1]!);
    const client = createChatClient({ baseUrl, model: 'scripted-model', dialect: 'vllm' });
    const [result] = await client.generate([
      { messages: ask('?'), choices: ['take apple 1', 'open fridge 1'] },
    ]);
    expect(result).toMatchObject({ text: 'open fridge 1', choiceIndex: 1 });
    expect(result!.tokenIds).toHaveLength('open fridge 1'.length);
    expect(policy.requests[0]!.choices).toEqual(['take apple 1', 'open fridge 1']);
  });

  it('batches requests that wait while the policy is busy into one policy call', async () => {
    const scripted = createScriptedPolicy((_request, call) => `reply ${call}`);
    const batchSizes: number[] = [];
    let server: ReturnType<typeof createChatCompletionsServer> | undefined;
    let firstCalled: () => void = () => undefined;
    const firstBatchStarted = new Promise<void>((resolve) => {
      firstCalled = resolve;
    });
    const untilQueued = async (count: number) => {
      while ((server?.queued ?? 0) < count) await new Promise((resolve) => setImmediate(resolve));
    };
    const busyPolicy: Policy = {
      name: 'busy',
      version: 0,
      async generate(requests) {
        batchSizes.push(requests.length);
        if (batchSizes.length === 1) {
          firstCalled();
          await untilQueued(3);
        }
        return scripted.generate(requests);
      },
    };
    server = createChatCompletionsServer({ policy: busyPolicy, modelName: 'm', maxBatchSize: 8 });
    const baseUrl = await server.listen();
    closers.push(() => server!.close());
    const client = createChatClient({ baseUrl, model: 'm', maxConcurrency: 4 });
    const first = client.generate([{ messages: ask('q0') }]);
    await firstBatchStarted;
    const rest = client.generate([1, 2, 3].map((n) => ({ messages: ask(`q${n}`) })));
    const results = [...(await first), ...(await rest)];
    expect(results.map((result) => result.text).sort()).toEqual(['reply 0', 'reply 1', 'reply 2', 'reply 3']);
    expect(batchSizes).toEqual([1, 3]);
  });

  it('chat() returns text, token logprobs and usage; listModels() names the served model', async () => {
    const { baseUrl } = await serve(() => '{"ok": true}');
    const client = createChatClient({ baseUrl, model: 'scripted-model' });
    const response = await client.chat({ messages: ask('json please'), logprobs: true });
    expect(response.text).toBe('{"ok": true}');
    expect(response.tokens).toHaveLength(response.text.length);
    expect(response.usage.completionTokens).toBe(response.text.length);
    expect(await client.listModels()).toEqual(['scripted-model']);
  });

  it('names the endpoint and the server message when the model does not exist', async () => {
    const { baseUrl } = await serve(() => 'x');
    const client = createChatClient({ baseUrl, model: 'other-model' });
    const error = await client.chat({ messages: ask('x') }).catch((caught: unknown) => caught);
    expect((error as Error).name).toBe('LlmRequestError');
    expect((error as Error).message).toContain(
      `POST ${baseUrl}/chat/completions failed after 1 attempt: HTTP 404`,
    );
    expect((error as Error).message).toContain('does not exist; this server serves \\"scripted-model\\"');
    expect((error as Error).message).toContain('Check that baseUrl ends with /v1');
  });
});
