// The curriculum with its weights on a real Tinker server: configs/tinker-tiny.yaml (SFT, then the
// follow, plan and joint stages on ALFWorld) against SkyRL 0.4.0's `skyrl.tinker.api` with its JAX
// backend on the CPU and a tiny Qwen3 made on the spot, from the venv of
// packages/tinker/reference/setup.sh. The run is killed after a checkpoint and resumed; the resumed
// policy must carry the trained version on. `pilotrl eval` reads the Tinker checkpoint, and the same
// file with its policy switched to tfjs trains in this process. A model that small learns nothing
// worth measuring: the tests assert the mechanics (phases, updates, checkpoints, resume), not
// success. Without the venv these tests skip loudly, and fail when CI is set.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sftStep } from '@pilotrl/optim';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { startTinkerServer, type TinkerServer, tinkerReference } from '../../../../tooling/tinker-server';
import { runCli } from '../cli';
import { parseConfig } from '../config/curriculum-config';
import { readJsonl } from '../run/jsonl';
import { createRunPolicy } from '../run/run-policy';
import { capturedIo, spawnPilotrl } from '../tiny-corridor.testing';

const reference = tinkerReference("pilotrl's curriculum through SkyRL's Tinker server (JAX, CPU)");
const shipped = parse(
  readFileSync(join(import.meta.dirname, '..', '..', 'configs', 'tinker-tiny.yaml'), 'utf8'),
) as Record<string, unknown> & { policy: Record<string, unknown> };

let server: TinkerServer;
let scratch = '';

/** configs/tinker-tiny.yaml with its policy section replaced. */
function curriculumWith(policy: Record<string, unknown>): string {
  const path = join(scratch, `tinker-tiny-${policy.kind}.yaml`);
  writeFileSync(path, stringify({ ...shipped, policy }));
  return path;
}

type Metrics = Record<string, number | string>;

describe.skipIf(!reference.run)("configs/tinker-tiny.yaml through SkyRL's Tinker server", () => {
  beforeAll(async () => {
    expect(reference.installed, 'run packages/tinker/reference/setup.sh first').toBe(true);
    // Positions for ALFWorld's prompts, and weights spread enough that a LoRA can move the logits.
    server = await startTinkerServer(reference, { model: { maxPositions: 2048, initStd: 0.3 } });
    scratch = mkdtempSync(join(tmpdir(), 'pilotrl-tinker-curriculum-'));
  });

  // A server that died mid-test is named, with its exit signal and log, beside the refused requests.
  afterEach(() => server?.assertAlive());

  afterAll(async () => {
    await server?.close();
    if (scratch !== '') rmSync(scratch, { recursive: true, force: true });
  });

  it('trains SFT and the three stages on the server, and a resume after a kill carries the weights on', async () => {
    const config = curriculumWith({
      ...shipped.policy,
      baseUrl: server.baseUrl,
      baseModel: server.baseModel,
    });
    const run = join(scratch, 'run');
    const killed = await spawnPilotrl(
      ['train', '--config', config, '--out', run, '--no-report'],
      (stderr, child) => {
        if (stderr.includes('(global iteration 3)')) child.kill('SIGKILL');
      },
    );
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    expect(killed.stderr).toContain(`trained on the Tinker server ${server.baseUrl}`);
    expect(killed.stderr).toMatch(/on http:\/\/127\.0\.0\.1:\d+ \(LoRA rank 16\), vocabulary 344/);

    const resumed = await spawnPilotrl(['train', '--resume', run, '--no-report']);
    expect(resumed.code, `${resumed.stderr}\n${server.log().slice(-3000)}`).toBe(0);
    expect(resumed.stderr).toContain('resuming at plan iteration 0 (global 3)');

    const metrics = readJsonl(join(run, 'metrics.jsonl')) as Metrics[];
    expect(metrics.map((m) => m.phase)).toEqual(['sft', 'sft', 'follow', 'plan', 'joint', 'joint']);
    expect(metrics.map((m) => m.step)).toEqual([1, 2, 3, 4, 5, 6]);
    // SFT trains through the server's cross-entropy: the loss falls from the untrained model's.
    const sftLoss = metrics.filter((m) => m.phase === 'sft').map((m) => m['losses/sft_loss'] as number);
    expect(sftLoss[1]!).toBeLessThan(sftLoss[0]!);
    // Every stage iteration took its update step through the server (REINFORCE++ over the batch).
    for (const stage of metrics.slice(2)) {
      expect(stage['charts/updated'], String(stage.phase)).toBe(1);
      expect(Number.isFinite(stage['losses/loss'] as number)).toBe(true);
    }
    // The joint stage's KL term reads a frozen copy of the weights on the server.
    expect(metrics.at(-1)!['losses/kl_loss']).toBeGreaterThanOrEqual(0);
    const evals = readJsonl(join(run, 'evals.jsonl')) as { phase: string; success: { total: number } }[];
    expect(evals.map((e) => e.phase)).toEqual(['sft', 'follow', 'plan', 'joint']);
    for (const record of evals) expect(record.success.total).toBe(2);

    // 20 SFT steps and 4 stage updates: the resumed run went on from the version the checkpoint held.
    const latest = readFileSync(join(run, 'checkpoints', 'latest'), 'utf8').trim();
    const manifest = JSON.parse(
      readFileSync(join(run, 'checkpoints', latest, 'policy', 'tinker-checkpoint.json'), 'utf8'),
    ) as { policyVersion: number; baseModel: string };
    expect(manifest).toMatchObject({ policyVersion: 24, baseModel: server.baseModel });

    const io = capturedIo();
    const code = await runCli(['eval', '--checkpoint', run, '--episodes', '2'], io);
    expect(code, io.err()).toBe(0);
    expect(io.err()).toMatch(/LoRA rank 16/);
    expect(io.out()).toMatch(/^valid_seen\s+adaplan\s+\d+\.\d%/m);
  }, 900_000);

  it('freezes a copy on the server that keeps its weights while the policy trains on', async () => {
    const config = parseConfig({
      ...shipped,
      policy: { ...shipped.policy, baseUrl: server.baseUrl, baseModel: server.baseModel },
    });
    const { policy } = await createRunPolicy(config, []);
    try {
      const datum = policy.replyDatum({
        prompt: [{ role: 'user', content: 'Your task is to: put a clean mug in the coffeemachine.' }],
        response: '<thought>Step 1.</thought><action>go to countertop 1</action>',
      });
      const frozen = await policy.freeze();
      const [before] = await policy.forward([datum]);
      await sftStep(policy, [datum], { learningRate: 0.05 });
      const [trained] = await policy.forward([datum]);
      const [kept] = await frozen.policy.forward([datum]);
      expect(frozen.policy.version).toBe(0);
      for (const [t, logprob] of before!.logprobs.entries())
        expect(kept!.logprobs[t]).toBeCloseTo(logprob, 5);
      expect(trained!.logprobs.slice(1)).not.toEqual(before!.logprobs.slice(1));
      await frozen.dispose();
    } finally {
      policy.dispose();
    }
  }, 300_000);

  it('trains the same curriculum in process with its policy switched to tfjs', async () => {
    const config = curriculumWith({
      kind: 'tfjs',
      size: 'tiny',
      contextLength: 512,
      tokenizerCorpusTasks: 20,
      vocabSize: 400,
    });
    const run = join(scratch, 'tfjs');
    const io = capturedIo();
    const code = await runCli(['train', '--config', config, '--out', run, '--no-report'], io);
    expect(code, io.err()).toBe(0);
    const metrics = readJsonl(join(run, 'metrics.jsonl')) as Metrics[];
    expect(metrics.map((m) => m.phase)).toEqual(['sft', 'sft', 'follow', 'plan', 'joint', 'joint']);
  }, 600_000);
});
