// The batcher on its own: concurrent requests share one policy call, batches are capped, and a
// request the policy refuses fails alone.
import { type GenerateRequest, InvalidArgumentError, type Policy } from '@pilotrl/core';
import { createScriptedPolicy } from '@pilotrl/env-testkit/test';
import { describe, expect, it } from 'vitest';
import { createRequestBatcher } from './request-batcher';

const ask = (content: string): GenerateRequest => ({ messages: [{ role: 'user', content }] });

/** A scripted policy that echoes each prompt, records its batch sizes and refuses the prompt `bad`. */
function recordingPolicy() {
  const scripted = createScriptedPolicy((request) => `echo ${request.messages.at(-1)!.content}`);
  const batches: number[] = [];
  const policy: Policy = {
    name: 'recording',
    version: 0,
    async generate(requests) {
      batches.push(requests.length);
      if (requests.some((request) => request.messages.at(-1)!.content === 'bad')) {
        throw new InvalidArgumentError('the prompt "bad" is refused');
      }
      return scripted.generate(requests);
    },
  };
  return { policy, batches };
}

describe('createRequestBatcher', () => {
  it('answers concurrent requests with one policy call, in their order', async () => {
    const { policy, batches } = recordingPolicy();
    const batcher = createRequestBatcher(policy, { maxBatchSize: 16, batchWindowMs: 0 });
    const answers = Promise.all(['a', 'b', 'c'].map((content) => batcher.generate(ask(content))));
    expect(batcher.queued).toBe(3);
    expect((await answers).map((result) => result.text)).toEqual(['echo a', 'echo b', 'echo c']);
    expect(batches).toEqual([3]);
    expect(batcher.queued).toBe(0);
  });

  it('splits the waiting requests into batches of at most maxBatchSize', async () => {
    const { policy, batches } = recordingPolicy();
    const batcher = createRequestBatcher(policy, { maxBatchSize: 2, batchWindowMs: 0 });
    await Promise.all(['a', 'b', 'c', 'd', 'e'].map((content) => batcher.generate(ask(content))));
    expect(batches).toEqual([2, 2, 1]);
  });

  it('reruns a failed batch one by one, so only the refused request fails', async () => {
    const { policy, batches } = recordingPolicy();
    const batcher = createRequestBatcher(policy, { maxBatchSize: 16, batchWindowMs: 0 });
    const settled = await Promise.allSettled(
      ['a', 'bad', 'c'].map((content) => batcher.generate(ask(content))),
    );
    expect(settled.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((settled[1] as PromiseRejectedResult).reason).toBeInstanceOf(InvalidArgumentError);
    expect(batches).toEqual([3, 1, 1, 1]);
  });
});
