import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheckpointError } from '@pilotrl/core';
import { describe, expect, it } from 'vitest';
import { train } from '../commands/train';
import { quietIo, tinyCorridorConfig } from '../tiny-corridor.testing';
import { lockRunDir, runPaths } from './run-dir';

const config = tinyCorridorConfig(0);

/** A run that finished its SFT phase, with a stage added to its config: a resume trains on. */
async function runToResume(dir: string): Promise<string> {
  const runDir = join(dir, 'run');
  await train({ config, out: runDir, report: false }, quietIo, []);
  writeFileSync(runPaths(runDir).configJson, JSON.stringify(tinyCorridorConfig(1)));
  return runDir;
}

describe('a run directory', () => {
  it('takes one trainer at a time, and a lock whose process is gone is taken over', async () => {
    const runDir = await runToResume(mkdtempSync(join(tmpdir(), 'pilotrl-lock-')));
    const release = lockRunDir(runDir);
    await expect(train({ resume: runDir, report: false }, quietIo, [])).rejects.toThrow(
      new RegExp(`is being trained by process ${process.pid}`),
    );
    await expect(train({ config, out: runDir, report: false }, quietIo, [])).rejects.toThrow(CheckpointError);
    release();
    // A lock left by a process that no longer runs.
    writeFileSync(join(runDir, 'train.lock'), '2147483646\n');
    await train({ resume: runDir, report: false }, quietIo, []);
    expect(existsSync(join(runDir, 'train.lock'))).toBe(false);
    const metrics = readFileSync(runPaths(runDir).metrics, 'utf8').trim().split('\n');
    expect(metrics.map((line) => (JSON.parse(line) as { step: number }).step)).toEqual([1, 2, 3, 4]);
  }, 120_000);

  it('loses what a killed trainer left half-written when the next one takes it', async () => {
    const runDir = await runToResume(mkdtempSync(join(tmpdir(), 'pilotrl-lock-')));
    const checkpoints = runPaths(runDir).checkpoints;
    mkdirSync(join(checkpoints, '.tmp-iter-000003-99999', 'policy'), { recursive: true });
    writeFileSync(join(checkpoints, 'latest.tmp-99999'), 'iter-000003\n');
    writeFileSync(join(runDir, 'manifest.json.tmp-99999'), '{');
    await train({ resume: runDir, report: false }, quietIo, []);
    expect(readdirSync(checkpoints).filter((entry) => entry.includes('tmp'))).toEqual([]);
    expect(readdirSync(runDir).filter((entry) => entry.includes('tmp'))).toEqual([]);
  }, 120_000);

  it('is not resumed when a log lost records since the checkpoint, and nothing is padded', async () => {
    const runDir = await runToResume(mkdtempSync(join(tmpdir(), 'pilotrl-lock-')));
    truncateSync(runPaths(runDir).metrics, 20);
    await expect(train({ resume: runDir, report: false }, quietIo, [])).rejects.toThrow(
      /metrics\.jsonl holds 20 bytes, fewer than the \d+ it held at the checkpoint/,
    );
    expect(readFileSync(runPaths(runDir).metrics)).toHaveLength(20);
  }, 120_000);

  it('cut short while it was made is neither resumed nor appended to, and a damaged config is named', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pilotrl-lock-'));
    const runDir = await runToResume(dir);
    const paths = runPaths(runDir);
    rmSync(paths.manifest);
    await expect(train({ resume: runDir, report: false }, quietIo, [])).rejects.toThrow(
      /was cut short while it was being made \(no manifest\.json\)/,
    );
    writeFileSync(paths.metrics, '{"step":99}\n');
    await train({ config, out: runDir, report: false }, quietIo, []);
    const steps = readFileSync(paths.metrics, 'utf8')
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { step: number }).step);
    expect(steps).toEqual([1, 2]);
    writeFileSync(paths.configJson, '{"name": "cut');
    await expect(train({ resume: runDir, report: false }, quietIo, [])).rejects.toThrow(
      /config\.json is damaged: /,
    );
  }, 120_000);
});
