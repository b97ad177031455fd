// The run's policy seam on the tfjs backend: supervised datums as the policy-tfjs SFT renders them,
// and a frozen copy that keeps its weights while the policy trains on. (The Tinker backend's are
// run against SkyRL's server in tinker-curriculum.engine.test.ts.)
import { sftStep } from '@pilotrl/optim';
import { sftDatum, type TfjsPolicy } from '@pilotrl/policy-tfjs';
import { describe, expect, it } from 'vitest';
import { tinyCorridorConfig } from '../tiny-corridor.testing';
import { runEnvsFor } from './run-envs';
import { createRunPolicy } from './run-policy';

describe('a tfjs run policy', () => {
  it('renders replies as SFT does, and freezes a copy that keeps its weights while the policy trains', async () => {
    const config = tinyCorridorConfig(1);
    const { policy, dataHashes } = await createRunPolicy(config, runEnvsFor(config));
    try {
      expect(dataHashes.tokenizerCorpus).toMatch(/^[0-9a-f]{64}$/);
      expect(policy.describe()).toMatch(/^\d+ parameters, vocabulary \d+$/);
      const example = { prompt: [{ role: 'user' as const, content: 'Where now?' }], response: 'go east' };
      const datum = policy.replyDatum(example);
      const { tokenizer } = (policy as unknown as { inner: TfjsPolicy }).inner;
      expect(datum).toEqual(sftDatum(tokenizer, example));

      const frozen = await policy.freeze();
      const [before] = await policy.forward([datum]);
      await sftStep(policy, [datum], { learningRate: 0.05 });
      const [trained] = await policy.forward([datum]);
      const [kept] = await frozen.policy.forward([datum]);
      expect(policy.version).toBe(1);
      expect(frozen.policy.version).toBe(0);
      expect(kept!.logprobs).toEqual(before!.logprobs);
      expect(trained!.logprobs).not.toEqual(before!.logprobs);
      await frozen.dispose();
    } finally {
      policy.dispose();
    }
  }, 60_000);
});
