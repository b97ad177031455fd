import { ConfigError } from '@pilotrl/core';
import { shutdownBackend } from '@pilotrl/policy-tfjs';
import { afterAll, expect, it } from 'vitest';
import { tfjsBackend, tfjsOptionsOf } from './tfjs-backend';

afterAll(() => shutdownBackend());

it('refuses to train on the cpu backend with what to use instead, and still evaluates on it', async () => {
  const options = { ...tfjsOptionsOf({ kind: 'tfjs', seed: 1, valueHead: false }), backend: 'cpu' as const };
  const training = tfjsBackend.start(options, 'train');
  await expect(training).rejects.toBeInstanceOf(ConfigError);
  await expect(training).rejects.toThrow(
    /too slow and memory-hungry to train on; train on tensorflow or wasm/,
  );
  const evaluating = await tfjsBackend.start(options, 'evaluate');
  expect(evaluating.line).toMatch(/^backend cpu/);
});
