// tooling/gpu-check.sh where there is no GPU (every machine the tests run on): it stops before
// installing anything with one sentence saying what is missing; and its report of the bench's GPU
// figures against the CPU's.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gpuAgainstCpu, readBenchFigures } from '../../../../tooling/gpu-check-report';

const repoRoot = resolve(import.meta.dirname, '../../../..');

const gpuCheck = (nvidiaSmi: string) =>
  spawnSync('bash', [join(repoRoot, 'tooling/gpu-check.sh')], {
    encoding: 'utf8',
    env: { ...process.env, NVIDIA_SMI: nvidiaSmi },
  });

describe('the GPU check without a GPU', () => {
  it('says there is no NVIDIA driver when nvidia-smi is missing', () => {
    const run = gpuCheck(join(repoRoot, 'no-such-nvidia-smi'));
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim()).toMatch(
      /^gpu check: no NVIDIA GPU found: '.*no-such-nvidia-smi' is not installed, so this machine has no NVIDIA driver; run the check on a machine with an NVIDIA GPU and its driver\.$/,
    );
  });

  it('says the driver lists no GPU when nvidia-smi fails', () => {
    const run = gpuCheck('false');
    expect(run.status).toBe(1);
    expect(run.stderr.trim()).toBe(
      "gpu check: no NVIDIA GPU found: 'false' lists none (no output); check that the GPU is visible to this machine and its driver is loaded.",
    );
  });
});

describe('the GPU check report', () => {
  const figures = (trainTokens: number, decodeRate: number, choiceRate: number) => ({
    threads: 2,
    trainTokens,
    trainCpuTokens: trainTokens,
    decodeRate,
    choiceRate,
  });

  it('sets each figure of the GPU beside the CPU with their ratio', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pilotrl-gpu-check-'));
    writeFileSync(
      join(dir, 'cpu.json'),
      JSON.stringify({ sizes: { '1m': { tensorflow: figures(4000, 2000, 60) } } }),
    );
    writeFileSync(
      join(dir, 'gpu.json'),
      JSON.stringify({ sizes: { '1m': { 'tensorflow-gpu': figures(40_000, 3000, 30) } } }),
    );
    const table = gpuAgainstCpu(
      readBenchFigures(join(dir, 'cpu.json'), 'tensorflow'),
      readBenchFigures(join(dir, 'gpu.json'), 'tensorflow-gpu'),
    );
    expect(table.split('\n').map((line) => line.trimEnd().split(/ {2,}/))).toEqual([
      ['size', 'figure', 'CPU (tensorflow)', 'GPU (tensorflow-gpu)', 'GPU / CPU'],
      ['1m', 'training tokens/s', '4000', '40000', '10.00x'],
      ['1m', 'decode tokens/s (KV cache, batch 32)', '2000', '3000', '1.50x'],
      ['1m', 'constrained choice requests/s', '60', '30', '0.50x'],
    ]);
  });

  it('refuses a figures file without the backend it needs', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pilotrl-gpu-check-'));
    const path = join(dir, 'cpu.json');
    writeFileSync(path, JSON.stringify({ sizes: { '1m': { wasm: figures(1, 1, 1) } } }));
    expect(() => readBenchFigures(path, 'tensorflow')).toThrow(
      `${path}: size 1m has no positive trainTokens for tensorflow`,
    );
  });
});
