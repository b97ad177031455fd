// Fuzzing of checkpoint directories: one small real checkpoint, copied and damaged (files cut
// short, bytes flipped, files deleted, fields of checkpoint.json given wrong types or huge values,
// with and without a checksum that matches). `TfjsPolicy.load` refuses each with a one-line
// PilotRLError, or loads exactly the policy that was saved; it never builds a model larger than
// the weights on the disk.
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRng, type Datum, PilotRLError, type Rng } from '@pilotrl/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TfjsPolicy } from './policy';
import { Tokenizer } from './tokenizer';

const tokenizer = Tokenizer.train(['open the drawer', 'take the key from the drawer'], { vocabSize: 280 });
const model = { dModel: 16, nLayers: 1, nHeads: 2, contextLength: 32, seed: 3 };
const ids = tokenizer.encode('take the key from the drawer');
const datum: Datum = { tokenIds: ids, weights: ids.map((_, i) => (i === 0 ? 0 : 1)) };
const root = mkdtempSync(join(tmpdir(), 'policy-tfjs-fuzz-'));
const original = join(root, 'original');
let saved: TfjsPolicy;
let savedForward: unknown;

beforeAll(async () => {
  saved = await TfjsPolicy.create({ tokenizer, model });
  await saved.forwardBackward([datum], 'cross_entropy');
  await saved.optimStep({ learningRate: 1e-2 });
  await saved.saveState(original);
  savedForward = await saved.forward([datum]);
});
afterAll(() => {
  saved.dispose();
  rmSync(root, { recursive: true, force: true });
});

// Control characters other than line feed and tab.
const CONTROL = /(?![\n\t])\p{Cc}/u;

const digest = (manifest: Record<string, unknown>) => {
  const { manifestSha256: _own, ...rest } = manifest;
  return createHash('sha256').update(JSON.stringify(rest)).digest('hex');
};

type Json = Record<string, unknown>;

/** Strange replacements for a field: wrong types, huge or negative numbers, huge lists. */
const strangeValues: unknown[] = [
  'x',
  null,
  true,
  {},
  [],
  -1,
  0,
  1.5,
  1e9,
  2 ** 31,
  1e308,
  '\u0000\u001b[31m',
  Array.from({ length: 100_000 }, () => 0),
  Array.from({ length: 20_000 }, (_, i) => ({ name: `t${i}`, shape: [1e6, 1e6], offset: i })),
  Array.from({ length: 50_000 }, () => [0, 0]),
];

/** Paths to the fields of a manifest, down to the tensor table's entries. */
function fieldPaths(manifest: Json): string[][] {
  const paths: string[][] = [];
  const walk = (value: unknown, path: string[]) => {
    paths.push(path);
    if (typeof value !== 'object' || value === null || path.length >= 3) return;
    for (const [key, child] of Object.entries(value)) {
      if (Array.isArray(value) && Number(key) > 2) break;
      walk(child, [...path, key]);
    }
  };
  for (const [key, value] of Object.entries(manifest)) walk(value, [key]);
  return paths;
}

function setField(manifest: Json, path: string[], value: unknown): void {
  let node = manifest;
  for (const key of path.slice(0, -1)) node = node[key] as Json;
  node[path.at(-1)!] = value;
}

const flip = (rng: Rng, bytes: Buffer, count: number) => {
  const copy = Buffer.from(bytes);
  for (let n = 0; n < count; n++) {
    const at = rng.int(copy.length);
    copy[at] = copy[at]! ^ (1 + rng.int(255));
  }
  return copy;
};

/** Damages the checkpoint copied to `dir`; returns what was done. */
function damage(rng: Rng, dir: string): string {
  const manifestPath = join(dir, 'checkpoint.json');
  const weightsPath = join(dir, 'weights.bin');
  const manifestBytes = readFileSync(manifestPath);
  const weights = readFileSync(weightsPath);
  const manifest = JSON.parse(manifestBytes.toString('utf8')) as Json;
  const kind = rng.int(9);
  if (kind === 0) {
    const at = rng.int(manifestBytes.length);
    writeFileSync(manifestPath, manifestBytes.subarray(0, at));
    return `checkpoint.json cut at ${at}`;
  }
  if (kind === 1) {
    const at = rng.int(weights.length);
    writeFileSync(weightsPath, weights.subarray(0, at));
    return `weights.bin cut at ${at}`;
  }
  if (kind === 2) {
    writeFileSync(manifestPath, flip(rng, manifestBytes, rng.intBetween(1, 4)));
    return 'bytes of checkpoint.json flipped';
  }
  if (kind === 3) {
    writeFileSync(weightsPath, flip(rng, weights, rng.intBetween(1, 4)));
    return 'bytes of weights.bin flipped';
  }
  if (kind === 4) {
    const which = rng.pick(['checkpoint.json', 'weights.bin']);
    rmSync(join(dir, which));
    if (rng.int(2) === 0) mkdirSync(join(dir, which));
    return `${which} deleted`;
  }
  // A field given a strange value: with the old checksum, a recomputed one, or none (an older format).
  // Half the time a dimension of the model, made huge but valid for the schema.
  const dimension = rng.pick(['dModel', 'nLayers', 'contextLength', 'vocabSize', 'mlpRatio']);
  const huge = rng.int(2) === 0;
  const path = huge
    ? ['model', dimension]
    : rng.pick(fieldPaths(manifest).filter((p) => p[0] !== 'manifestSha256'));
  const value = huge ? rng.pick([2 ** 20, 2 ** 31, 1e9, 2 ** 52]) : rng.pick(strangeValues);
  setField(manifest, path, value);
  const checksum = rng.pick(['stale', 'recomputed', 'removed'] as const);
  if (checksum === 'recomputed') manifest.manifestSha256 = digest(manifest);
  if (checksum === 'removed') delete manifest.manifestSha256;
  if (kind === 5 && rng.int(2) === 0) {
    // Weights that match what the damaged manifest says of them.
    const grown = Buffer.concat([weights, Buffer.alloc(4 * rng.intBetween(1, 64))]);
    writeFileSync(weightsPath, grown);
    manifest.weightsSha256 = createHash('sha256').update(grown).digest('hex');
    if (checksum === 'recomputed') manifest.manifestSha256 = digest(manifest);
  }
  writeFileSync(manifestPath, JSON.stringify(manifest));
  const shown = JSON.stringify(value)!;
  return `${path.join('.')} = ${shown.length > 30 ? `${shown.slice(0, 30)}...` : shown} (checksum ${checksum})`;
}

describe('checkpoint fuzz', () => {
  it('TfjsPolicy.load refuses a damaged checkpoint with a one-line error, or loads it unchanged (80 cases)', async () => {
    const rng = createRng('checkpoint-fuzz');
    const failures: string[] = [];
    let refused = 0;
    for (let i = 0; i < 80; i++) {
      const dir = join(root, `case-${i}`);
      cpSync(original, dir, { recursive: true });
      const what = damage(rng, dir);
      let loaded: TfjsPolicy | undefined;
      try {
        loaded = await TfjsPolicy.load(dir);
      } catch (error) {
        refused++;
        const message = (error as Error).message;
        if (!PilotRLError.isInstance(error)) failures.push(`case ${i} (${what}): ${(error as Error).stack}`);
        else if (message.includes('\n') || message.length > 1000 || CONTROL.test(message))
          failures.push(`case ${i} (${what}): message ${JSON.stringify(message.slice(0, 300))}`);
      }
      if (loaded !== undefined) {
        // Loaded: then it is the policy that was saved, not something else.
        const same =
          loaded.version === saved.version &&
          JSON.stringify(loaded.tokenizer.toJSON()) === JSON.stringify(tokenizer.toJSON()) &&
          JSON.stringify(await loaded.forward([datum])) === JSON.stringify(savedForward);
        if (!same) failures.push(`case ${i} (${what}): loaded a policy other than the one saved`);
        loaded.dispose();
      }
      rmSync(dir, { recursive: true, force: true });
    }
    expect(failures.slice(0, 5)).toEqual([]);
    expect(refused).toBeGreaterThan(60);
  });
});
