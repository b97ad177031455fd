// Throughput of the chat client against the local chat-completions server serving a scripted
// policy, by client concurrency: requests per second and the server's mean batch size.

import { mean, type Policy } from '@pilotrl/core';
import { createScriptedPolicy } from '@pilotrl/env-testkit/test';
import { createChatClient } from '../src/chat-client';
import { createChatCompletionsServer } from '../src/chat-completions-server';

const REQUESTS = 600;
const reply = '<thought>The apple should be on the counter.</thought><action>go to countertop 1</action>';

async function run(concurrency: number) {
  const scripted = createScriptedPolicy(() => reply);
  const batchSizes: number[] = [];
  const policy: Policy = {
    name: scripted.name,
    version: scripted.version,
    generate: (batch) => {
      batchSizes.push(batch.length);
      return scripted.generate(batch);
    },
  };
  const server = createChatCompletionsServer({ policy, modelName: 'bench', maxBatchSize: 64 });
  const baseUrl = await server.listen();
  const client = createChatClient({ baseUrl, model: 'bench', maxConcurrency: concurrency, dialect: 'vllm' });
  const requests = Array.from({ length: REQUESTS }, (_, index) => ({
    messages: [{ role: 'user' as const, content: `Task ${index}: put a clean apple in the fridge.` }],
    stop: ['</action>'],
    seed: index,
  }));
  await client.generate(requests.slice(0, 20));
  const started = performance.now();
  await client.generate(requests);
  const seconds = (performance.now() - started) / 1000;
  await server.close();
  const sizes = batchSizes.slice(1);
  return {
    concurrency,
    perSecond: REQUESTS / seconds,
    meanBatch: mean(sizes),
  };
}

const results = [];
for (const concurrency of [1, 8, 32]) {
  const result = await run(concurrency);
  results.push(result);
  console.log(
    `concurrency ${String(concurrency).padStart(2)}: ${result.perSecond.toFixed(0)} requests/s, mean server batch ${result.meanBatch.toFixed(1)}`,
  );
}
console.log(`speed-up 32 vs 1: ${(results[2]!.perSecond / results[0]!.perSecond).toFixed(2)}x`);
