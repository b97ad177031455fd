import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheckpointError, type Datum } from '@pilotrl/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TfjsPolicy } from './policy';
import { Tokenizer } from './tokenizer';

const tokenizer = Tokenizer.train(['open the drawer', 'take the key from the drawer'], { vocabSize: 280 });
const model = { dModel: 16, nLayers: 1, nHeads: 2, contextLength: 32, seed: 2 };
const ids = tokenizer.encode('take the key from the drawer');
const datum: Datum = { tokenIds: ids, weights: ids.map((_, i) => (i === 0 ? 0 : 1)) };
let root: string;

const trainSteps = async (policy: TfjsPolicy, steps: number) => {
  for (let i = 0; i < steps; i++) {
    await policy.forwardBackward([datum], 'cross_entropy');
    await policy.optimStep({ learningRate: 1e-2, weightDecay: 0.1 });
  }
};

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'policy-tfjs-ckpt-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('checkpoints', () => {
  it('saves and loads weights, optimizer state, tokenizer and version', async () => {
    const policy = await TfjsPolicy.create({ tokenizer, model });
    await trainSteps(policy, 3);
    const dir = join(root, 'roundtrip');
    await policy.saveState(dir);
    const loaded = await TfjsPolicy.load(dir);
    expect(loaded.version).toBe(3);
    expect(loaded.tokenizer.toJSON()).toEqual(tokenizer.toJSON());
    expect(await loaded.forward([datum])).toEqual(await policy.forward([datum]));
    // Training continues identically, so the AdamW moments came back too.
    await trainSteps(policy, 2);
    await trainSteps(loaded, 2);
    expect(await loaded.forward([datum])).toEqual(await policy.forward([datum]));
    policy.dispose();
    loaded.dispose();
  });

  it('overwrites a checkpoint atomically, leaving no temporary directories', async () => {
    const policy = await TfjsPolicy.create({ tokenizer, model });
    const dir = join(root, 'overwrite');
    await policy.saveState(dir);
    await trainSteps(policy, 1);
    await policy.saveState(dir);
    expect((await readdir(root)).filter((name) => name.includes('overwrite'))).toEqual(['overwrite']);
    const fresh = await TfjsPolicy.create({ tokenizer, model });
    await fresh.loadState(dir);
    expect(fresh.version).toBe(1);
    policy.dispose();
    fresh.dispose();
  });

  it('reports a damaged, missing or mismatched checkpoint with a CheckpointError', async () => {
    const policy = await TfjsPolicy.create({ tokenizer, model });
    const dir = join(root, 'damaged');
    await policy.saveState(dir);
    const weights = await readFile(join(dir, 'weights.bin'));
    weights[10] = (weights[10]! + 1) % 256;
    await writeFile(join(dir, 'weights.bin'), weights);
    await expect(policy.loadState(dir)).rejects.toThrow(/damaged: weights.bin .* does not match the SHA-256/);
    await expect(policy.loadState(join(root, 'nowhere'))).rejects.toThrow(/no checkpoint at/);

    const bigger = await TfjsPolicy.create({ tokenizer, model: { ...model, dModel: 32 } });
    const other = join(root, 'bigger');
    await bigger.saveState(other);
    const error = await policy.loadState(other).catch((e: unknown) => e);
    expect(CheckpointError.isInstance(error)).toBe(true);
    expect(String(error)).toMatch(/"dModel":32.*TfjsPolicy.load/);

    // One digit of the tokenizer changed in checkpoint.json.
    const text = await readFile(join(other, 'checkpoint.json'), 'utf8');
    const digit = text.search(/"tokenizer".*?\d/) + /"tokenizer".*?\d/.exec(text)![0].length - 1;
    const changed = `${text.slice(0, digit)}${(Number(text[digit]) + 1) % 10}${text.slice(digit + 1)}`;
    await writeFile(join(other, 'checkpoint.json'), changed);
    await expect(TfjsPolicy.load(other)).rejects.toThrow(
      /damaged: checkpoint.json was changed after it was written/,
    );
    await writeFile(join(other, 'checkpoint.json'), text);

    const { manifestSha256: _checksum, ...manifest } = JSON.parse(text);
    await writeFile(join(other, 'checkpoint.json'), JSON.stringify({ ...manifest, formatVersion: 99 }));
    await expect(TfjsPolicy.load(other)).rejects.toThrow(/format version 99/);
    await writeFile(join(other, 'checkpoint.json'), '{"format": "pilotrl-policy-tfjs", "formatVersion": 1}');
    await expect(TfjsPolicy.load(other)).rejects.toThrow(/damaged: checkpoint.json is invalid/);
    policy.dispose();
    bigger.dispose();
  });
});
