import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSafetensorsHeader } from '../hf/safetensors';
import { TfjsPolicy } from '../policy';
import { Tokenizer } from '../tokenizer';
import { exportHf } from './export-hf';

const tokenizer = Tokenizer.train(['open the drawer', 'take the key from the drawer'], { vocabSize: 280 });
let root: string;
let checkpoint: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'policy-tfjs-export-'));
  checkpoint = join(root, 'checkpoint');
  const policy = await TfjsPolicy.create({
    tokenizer,
    model: { dModel: 16, nLayers: 1, nHeads: 2, contextLength: 32, valueHead: true },
  });
  await policy.saveState(checkpoint);
  policy.dispose();
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('exportHf', () => {
  it('writes the model, its configs and the tokenizer into a new directory', async () => {
    const out = join(root, 'new', 'hf');
    const result = await exportHf(checkpoint, out);
    const files = [
      'config.json',
      'generation_config.json',
      'model.safetensors',
      'tokenizer.json',
      'tokenizer_config.json',
    ];
    expect((await readdir(out)).sort()).toEqual(files);
    expect(result.files).toEqual(files);
    const header = await readSafetensorsHeader(join(out, 'model.safetensors'));
    expect(header.tensors.size).toBe(4 + 12);
    expect(result.parameters).toBe(
      [...header.tensors.values()].reduce((n, t) => n + (t.end - t.begin) / 4, 0),
    );
    const config = JSON.parse(await readFile(join(out, 'config.json'), 'utf8'));
    expect(config).toMatchObject({ vocab_size: tokenizer.vocabSize, n_embd: 16, n_positions: 32 });
  });

  it('writes into an empty directory that exists', async () => {
    const out = join(root, 'empty');
    await mkdir(out);
    await exportHf(checkpoint, out);
    expect(existsSync(join(out, 'tokenizer.json'))).toBe(true);
  });

  it('refuses a directory that is not a checkpoint, writing nothing', async () => {
    const notCheckpoint = join(root, 'not-a-checkpoint');
    await mkdir(notCheckpoint);
    await writeFile(join(notCheckpoint, 'checkpoint.json'), JSON.stringify({ format: 'something-else' }));
    const out = join(root, 'refused-1');
    await expect(exportHf(notCheckpoint, out)).rejects.toThrow(
      `${notCheckpoint} is not a pilotrl-policy-tfjs checkpoint`,
    );
    await expect(exportHf(join(root, 'missing'), out)).rejects.toThrow(
      `no checkpoint at ${join(root, 'missing')}: checkpoint.json cannot be read`,
    );
    expect(existsSync(out)).toBe(false);
  });

  it('refuses an output directory that is not empty, leaving it as it was', async () => {
    const out = join(root, 'taken');
    await mkdir(out);
    await writeFile(join(out, 'notes.txt'), 'mine');
    await expect(exportHf(checkpoint, out)).rejects.toThrow(
      `output ${out} is not empty (it holds notes.txt); give a new or empty directory`,
    );
    expect(await readdir(out)).toEqual(['notes.txt']);
  });
});
