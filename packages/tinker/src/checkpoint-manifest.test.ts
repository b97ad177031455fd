import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheckpointError } from '@pilotrl/core';
import { afterAll, describe, expect, it } from 'vitest';
import { type CheckpointManifest, MANIFEST_FILE, readManifest, writeManifest } from './checkpoint-manifest';

const dir = mkdtempSync(join(tmpdir(), 'tinker-manifest-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const manifest: CheckpointManifest = {
  format: 'pilotrl-tinker-checkpoint',
  formatVersion: 1,
  tinkerPath: 'tinker://model_1/weights/v3_abc',
  baseUrl: 'http://127.0.0.1:8000',
  baseModel: 'Qwen/Qwen3-8B',
  loraRank: 32,
  policyVersion: 3,
  savedAt: '2026-01-01T00:00:00.000Z',
};

describe('checkpoint manifest', () => {
  it('round-trips', async () => {
    await writeManifest(join(dir, 'a'), manifest);
    expect(await readManifest(join(dir, 'a'))).toEqual(manifest);
    expect(JSON.parse(readFileSync(join(dir, 'a', MANIFEST_FILE), 'utf8')).tinkerPath).toBe(
      manifest.tinkerPath,
    );
  });

  it('says what is wrong with a missing or damaged one', async () => {
    await expect(readManifest(join(dir, 'none'))).rejects.toSatisfy((error) =>
      CheckpointError.isInstance(error),
    );
    await writeManifest(join(dir, 'b'), manifest);
    writeFileSync(
      join(dir, 'b', MANIFEST_FILE),
      JSON.stringify({ ...manifest, tinkerPath: 'tinker://model_1/sampler_weights/x' }),
    );
    await expect(readManifest(join(dir, 'b'))).rejects.toThrow(/tinkerPath/);
  });
});
