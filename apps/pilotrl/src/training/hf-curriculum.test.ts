// A curriculum on a pretrained Hugging Face model (`policy.kind: hf`), end to end on a tiny random
// Qwen3 directory: SFT and a joint stage on the testkit corridor with LoRA, checkpoints that record
// the model directory, a resume from an earlier checkpoint, `eval --checkpoint` and `serve` of the
// last one.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { shutdownBackend } from '@pilotrl/policy-tfjs';
import { writeTinyHfDir } from '@pilotrl/policy-tfjs/test';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli';
import { serve } from '../commands/serve';
import { train } from '../commands/train';
import { readJsonl } from '../run/jsonl';
import { readManifest, readRunConfig, runPaths } from '../run/run-dir';
import { capturedIo, quietIo, tinyCorridorConfig } from '../tiny-corridor.testing';

afterAll(() => shutdownBackend());

describe('a curriculum on a pretrained Hugging Face model', () => {
  it('trains with LoRA, checkpoints, resumes, and evaluates and serves its last checkpoint', async () => {
    const root = mkdtempSync(join(tmpdir(), 'pilotrl-hf-curriculum-'));
    const modelDir = writeTinyHfDir(join(root, 'model'), 5, { maxPositions: 512 });
    const config = tinyCorridorConfig(1, {
      name: 'hf-tiny',
      policy: { kind: 'hf', pretrained: modelDir, lora: { rank: 2, alpha: 4 }, contextLength: 384 },
      // Choices among the admissible commands, whose repeats are penalised: rewards differ within a
      // group, so the stage updates; the KL term needs a frozen copy of the model.
      agent: { ...tinyCorridorConfig(0).agent, actionSpace: 'choice' },
      stages: [0, 1].map(() => ({
        kind: 'joint' as const,
        iterations: 1,
        tasksPerIteration: 1,
        groupSize: 4,
        learningRate: 1e-3,
        rewards: { outcome: 1, repeated_action: 1 },
        loss: { klCoef: 0.01 },
      })),
      checkpoint: { every: 1, keep: 2 },
    });
    const runDir = join(root, 'run');
    const trained = capturedIo();
    await train({ config, out: runDir, report: false }, trained, ['train']);
    expect(trained.err()).toContain(
      `pilotrl: qwen3 model ${modelDir} (LoRA rank 2 on q_proj, k_proj, v_proj, o_proj)`,
    );

    // The run records the model directory and the hashes of its files; each checkpoint names it too.
    expect(readRunConfig(runDir).policy).toMatchObject({ kind: 'hf', pretrained: modelDir });
    expect(Object.keys(readManifest(runDir).dataHashes)).toEqual(
      expect.arrayContaining([
        'pretrained/config.json',
        'pretrained/model.safetensors',
        'pretrained/tokenizer.json',
      ]),
    );
    const checkpoints = runPaths(runDir).checkpoints;
    const last = join(checkpoints, 'iter-000004');
    const state = JSON.parse(readFileSync(join(last, 'policy', 'hf-policy.json'), 'utf8'));
    expect(state).toMatchObject({ base: { dir: modelDir }, lora: { rank: 2, alpha: 4 } });
    const metrics = readJsonl(runPaths(runDir).metrics) as Record<string, unknown>[];
    expect(metrics.map((m) => m.phase)).toEqual(['sft', 'sft', 'joint-1', 'joint-2']);
    for (const m of metrics.slice(0, 2)) expect(m['losses/sft_loss']).toBeGreaterThan(0);
    expect(metrics.slice(2).map((m) => m['charts/updated'])).toEqual([1, 1]);
    expect(state.version).toBeGreaterThanOrEqual(4); // an optimizer step an iteration at least

    // As if the trainer had stopped after global iteration 3: the resume loads that checkpoint's policy.
    const stopped = join(root, 'stopped');
    cpSync(runDir, stopped, { recursive: true });
    rmSync(join(runPaths(stopped).checkpoints, 'iter-000004'), { recursive: true });
    writeFileSync(join(runPaths(stopped).checkpoints, 'latest'), 'iter-000003\n');
    const resumed = capturedIo();
    await train({ resume: stopped, report: false }, resumed, ['train']);
    expect(resumed.err()).toContain('resuming at joint-2 iteration 0 (global 3)');
    expect(readJsonl(runPaths(stopped).metrics)).toHaveLength(4);

    const evaluated = capturedIo();
    const code = await runCli(['eval', '--checkpoint', last, '--episodes', '2'], evaluated);
    expect(code, evaluated.err()).toBe(0);
    expect(evaluated.out()).toMatch(/valid_unseen\s+adaplan\s+\d+\.\d%/);

    const server = await serve(
      { checkpoint: last, port: 0, host: '127.0.0.1', modelName: 'hf-tiny' },
      quietIo,
    );
    try {
      const response = await fetch(`${server.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'hf-tiny',
          messages: [{ role: 'user', content: 'go' }],
          max_tokens: 3,
        }),
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { choices: { message: { role: string } }[] };
      expect(body.choices[0]!.message.role).toBe('assistant');
    } finally {
      await server.close();
    }
  }, 120_000);
});
