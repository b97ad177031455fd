// A directory replaced by `writeDirDurable` is never lost: a process killed between moving the old
// directory aside and renaming the new one in leaves the old one for the next write or reader to put
// back, and a rename-in that fails puts it back at once.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheckpointError } from '@pilotrl/core';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { writeDirDurable } from './durable-fs';
import { HfPolicy } from './hf/hf-policy';
import { writeTinyHfDir } from './hf/tiny-hf-dir.testing';
import { TfjsPolicy } from './policy';
import { Tokenizer } from './tokenizer';

// `renameIn(from, to)` decides what a rename of a new directory into place does: go through, fail,
// or never finish, which leaves the disk as a kill between the two renames would.
const fsHook = vi.hoisted(() => ({
  renameIn: undefined as ((from: string, to: string) => 'fail' | 'kill' | undefined) | undefined,
}));
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...actual,
    rename(from: string, to: string) {
      const fate = from.includes('.tmp-') ? fsHook.renameIn?.(from, to) : undefined;
      if (fate === 'kill') return new Promise<void>(() => undefined);
      if (fate === 'fail')
        return Promise.reject(Object.assign(new Error('EIO: i/o error, rename'), { code: 'EIO' }));
      return actual.rename(from, to);
    },
  };
});

const root = mkdtempSync(join(tmpdir(), 'policy-tfjs-durable-dir-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
beforeEach(() => {
  fsHook.renameIn = undefined;
});

/**
 * Starts a replace of `dir` by `files` and resolves once it is stopped where a kill between its two
 * renames would stop it: the old directory moved aside, the new one not renamed in.
 */
function killedReplace(dir: string, files: [string, string][]): Promise<void> {
  return new Promise((stopped) => {
    fsHook.renameIn = (_, to) => {
      if (to !== dir) return undefined;
      stopped();
      return 'kill';
    };
    void writeDirDurable(dir, files, 'test files');
  });
}

const entriesOf = (dir: string) => readdirSync(dir).sort();

describe('writeDirDurable replacing a directory', () => {
  it('killed between its renames, leaves the old directory for the next write to put back and replace', async () => {
    const parent = join(root, 'next-write');
    const dir = join(parent, 'state');
    await writeDirDurable(dir, [['a.txt', 'first']], 'test files');
    await killedReplace(dir, [['a.txt', 'killed']]);
    expect(existsSync(dir)).toBe(false);
    fsHook.renameIn = undefined;
    await writeDirDurable(dir, [['a.txt', 'third']], 'test files');
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('third');
    expect(entriesOf(parent)).toEqual(['state']);
  });

  it('puts the old directory back when the new one cannot be renamed in', async () => {
    const parent = join(root, 'failed-rename');
    const dir = join(parent, 'state');
    await writeDirDurable(dir, [['a.txt', 'first']], 'test files');
    fsHook.renameIn = (_, to) => (to === dir ? 'fail' : undefined);
    const error = await writeDirDurable(dir, [['a.txt', 'second']], 'test files').catch((e: unknown) => e);
    expect(CheckpointError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(`could not write test files to ${dir}: EIO: i/o error, rename`);
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('first');
    expect(entriesOf(parent)).toEqual(['state']);
  });
});

describe('a saved state whose replace was killed between its renames', () => {
  it('is put back by TfjsPolicy.load and loadState', async () => {
    const dir = join(root, 'tfjs', 'policy');
    const policy = await TfjsPolicy.create({
      tokenizer: Tokenizer.train(['open the drawer'], { vocabSize: 270 }),
      model: { dModel: 16, nLayers: 1, nHeads: 2, contextLength: 16, seed: 1 },
    });
    await policy.saveState(dir);
    await killedReplace(dir, [['checkpoint.json', '{}']]);
    fsHook.renameIn = undefined;
    const loaded = await TfjsPolicy.load(dir);
    expect(loaded.version).toBe(0);
    await killedReplace(dir, [['checkpoint.json', '{}']]);
    fsHook.renameIn = undefined;
    await loaded.loadState(dir);
    expect(existsSync(join(dir, 'weights.bin'))).toBe(true);
    policy.dispose();
    loaded.dispose();
  });

  it("is put back by HfPolicy's loadState", async () => {
    const modelDir = writeTinyHfDir(join(root, 'hf', 'model'));
    const dir = join(root, 'hf', 'state');
    const policy = await HfPolicy.load(modelDir);
    await policy.saveState(dir);
    await killedReplace(dir, [['hf-policy.json', '{}']]);
    fsHook.renameIn = undefined;
    await policy.loadState(dir);
    expect(policy.version).toBe(0);
    policy.dispose();
  });
});
