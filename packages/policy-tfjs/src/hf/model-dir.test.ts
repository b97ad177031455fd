// The config of a Hugging Face model directory read without waiting is the one read asynchronously,
// and a directory without one is refused naming the file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheckpointError } from '@pilotrl/core';
import { afterAll, expect, it } from 'vitest';
import { readHfConfig, readHfConfigSync } from './model-dir';
import { tinyDirConfig, writeTinyHfDir } from './tiny-hf-dir.testing';

const scratch = mkdtempSync(join(tmpdir(), 'pilotrl-model-dir-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

it('reads config.json without waiting as readHfConfig does, and names the file it cannot read', async () => {
  const dir = writeTinyHfDir(join(scratch, 'model'), 3, { maxPositions: 96 });
  expect(readHfConfigSync(dir)).toEqual(await readHfConfig(dir));
  expect(readHfConfigSync(dir)).toMatchObject({ ...tinyDirConfig({ maxPositions: 96 }), modelType: 'qwen3' });
  const empty = join(scratch, 'empty');
  expect(() => readHfConfigSync(empty)).toThrow(CheckpointError);
  expect(() => readHfConfigSync(empty)).toThrow(`${join(empty, 'config.json')}: cannot read it`);
});
