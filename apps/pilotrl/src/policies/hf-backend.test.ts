// The `hf` policy section: a pretrained model directory and optional LoRA are read, the keys that
// build a model from scratch are refused with their reason, and a directory the loader cannot open
// is refused at load (config.json) or at setup (the weights), naming the file.
import { mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { CheckpointError, ConfigError } from '@pilotrl/core';
import { shutdownBackend } from '@pilotrl/policy-tfjs';
import { writeTinyHfDir } from '@pilotrl/policy-tfjs/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../config/curriculum-config';
import { policyContextLength } from '../config/policy-config';
import { startRun } from '../run/run-start';
import { tinyCorridorConfig } from '../tiny-corridor.testing';

const stage = {
  kind: 'joint',
  iterations: 1,
  tasksPerIteration: 1,
  groupSize: 2,
  learningRate: 1e-4,
  rewards: { outcome: 1 },
};

let root: string;
let modelDir: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'pilotrl-hf-backend-'));
  modelDir = writeTinyHfDir(join(root, 'model'), 3, { maxPositions: 256 });
});
afterAll(() => shutdownBackend());

function problems(policy: Record<string, unknown>, rest: Record<string, unknown> = {}): string {
  try {
    parseConfig({ stages: [stage], policy, ...rest });
  } catch (error) {
    expect(ConfigError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected the config to be rejected');
}

describe('hf policy config', () => {
  it('reads the model directory (made absolute) and LoRA, with the context of its config.json', () => {
    const config = parseConfig({
      stages: [stage],
      agent: { actionSpace: 'choice' },
      policy: { kind: 'hf', pretrained: modelDir, lora: { rank: 4, alpha: 8 } },
    });
    expect(config.policy).toMatchObject({
      kind: 'hf',
      pretrained: modelDir,
      lora: { rank: 4, alpha: 8, targetModules: ['q_proj', 'k_proj', 'v_proj', 'o_proj'] },
      backend: 'auto',
      valueHead: false,
    });
    expect(policyContextLength(config.policy)).toBe(256);
    const fromCwd = { kind: 'hf', pretrained: relative(process.cwd(), modelDir), contextLength: 128 };
    const config128 = parseConfig({ stages: [stage], policy: fromCwd });
    expect(config128.policy.pretrained).toBe(modelDir);
    expect(policyContextLength(config128.policy)).toBe(128);
  });

  it('refuses the keys of a model built from scratch and a value head, each with its reason', () => {
    const message = problems({
      kind: 'hf',
      pretrained: modelDir,
      size: 'tiny',
      dModel: 64,
      layers: 2,
      heads: 4,
      vocabSize: 400,
      tokenizerCorpusTasks: 10,
      valueHead: true,
    });
    const scratch =
      "sizes a model built from scratch; a pretrained model's shape is its config.json's; drop it";
    for (const key of ['size', 'dModel', 'layers', 'heads'])
      expect(message).toContain(`policy.${key}: ${scratch}`);
    expect(message).toContain(
      "policy.vocabSize: a pretrained model's vocabulary is its tokenizer.json's; drop it",
    );
    expect(message).toContain(
      'policy.tokenizerCorpusTasks: trains a tokenizer from scratch; a pretrained model brings its tokenizer.json; drop it',
    );
    expect(message).toContain('policy.valueHead: the Hugging Face model trains no value head');
    // A Tinker policy's way of naming its model and adapters points to this backend's.
    expect(problems({ kind: 'hf', pretrained: modelDir, loraRank: 8 })).toContain(
      'policy.loraRank: a Hugging Face policy takes policy.lora: { rank, alpha, targetModules }; drop it',
    );
    // ...and this backend's keys on a tfjs policy name it.
    expect(problems({ pretrained: modelDir })).toContain(
      'policy.pretrained: is a key of a Hugging Face policy; set policy.kind: hf, or drop it',
    );
  });

  it('refuses a missing directory, a config.json the loader refuses and a context past the model, naming the file', () => {
    expect(problems({ kind: 'hf' })).toContain(
      'policy.pretrained: a Hugging Face policy needs policy.pretrained: the directory of a Llama or Qwen3 model',
    );
    const missing = join(root, 'nowhere');
    expect(problems({ kind: 'hf', pretrained: missing })).toContain(
      `policy.pretrained: ${missing} is not a directory; give a Hugging Face model directory`,
    );
    const empty = mkdtempSync(join(root, 'empty-'));
    expect(problems({ kind: 'hf', pretrained: empty })).toContain(
      `policy.pretrained: ${join(empty, 'config.json')}: cannot read it`,
    );
    const gpt2 = writeTinyHfDir(join(root, 'gpt2'));
    writeFileSync(join(gpt2, 'config.json'), JSON.stringify({ model_type: 'gpt2' }));
    expect(problems({ kind: 'hf', pretrained: gpt2 })).toContain(
      `policy.pretrained: ${join(gpt2, 'config.json')}: model_type "gpt2" is not supported`,
    );
    expect(problems({ kind: 'hf', pretrained: modelDir, contextLength: 300 })).toContain(
      `policy.contextLength: 300 is more than the model's 256 positions (max_position_embeddings in ${join(modelDir, 'config.json')})`,
    );
  });

  it('checks the LoRA options: rank, alpha, the layers it can adapt and no other key', () => {
    const message = problems({
      kind: 'hf',
      pretrained: modelDir,
      lora: { rank: 0, alpha: 8, targetModules: ['qkv'] },
    });
    expect(message).toContain('policy.lora.rank: must be at least 1 (got 0)');
    expect(message).toMatch(/policy\.lora\.targetModules\.0: .*"q_proj"/);
    expect(
      problems({ kind: 'hf', pretrained: modelDir, lora: { rank: 4, alpha: 8, dropout: 0.1 } }),
    ).toContain('policy.lora: unknown key "dropout"; allowed here: rank, alpha, targetModules');
  });

  it('refuses weights the loader refuses when the policy is made, before the run starts, naming the file', async () => {
    const truncated = writeTinyHfDir(join(root, 'truncated'));
    truncateSync(join(truncated, 'model.safetensors'), 200);
    const config = tinyCorridorConfig(1, {
      policy: { kind: 'hf', pretrained: truncated, contextLength: 128 },
    });
    const creating = startRun(config);
    await expect(creating).rejects.toBeInstanceOf(CheckpointError);
    await expect(creating).rejects.toThrow(join(truncated, 'model.safetensors'));
  });
});
