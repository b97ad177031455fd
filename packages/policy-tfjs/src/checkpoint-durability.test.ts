import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TfjsPolicy } from './policy';
import { Tokenizer } from './tokenizer';

// Every flush and rename a checkpoint write makes, in order.
const { events } = vi.hoisted(() => ({ events: [] as string[] }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...actual,
    async open(...args: Parameters<typeof actual.open>) {
      const handle = await actual.open(...args);
      const sync = handle.sync.bind(handle);
      handle.sync = () => {
        events.push(`sync ${String(args[0])}`);
        return sync();
      };
      return handle;
    },
    rename(from: string, to: string) {
      events.push(`rename ${from} ${to}`);
      return actual.rename(from, to);
    },
  };
});

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'policy-tfjs-durable-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('checkpoint durability', () => {
  it('flushes the files and the directory before the rename, and the parent after it', async () => {
    const tokenizer = Tokenizer.train(['open the drawer'], { vocabSize: 270 });
    const policy = await TfjsPolicy.create({
      tokenizer,
      model: { dModel: 16, nLayers: 1, nHeads: 2, contextLength: 16, seed: 1 },
    });
    const dir = join(root, 'ckpt');
    for (const save of ['first save', 'save over it']) {
      events.length = 0;
      await policy.saveState(dir);
      const staging = /^rename (\S+) \S+$/.exec(events.at(-2)!)![1]!;
      // Moving an old checkpoint aside needs no flush: the new one replaces it.
      expect(
        events.filter((event) => !event.startsWith(`rename ${dir} `)),
        save,
      ).toEqual([
        `sync ${join(staging, 'weights.bin')}`,
        `sync ${join(staging, 'checkpoint.json')}`,
        `sync ${staging}`,
        `rename ${staging} ${dir}`,
        `sync ${root}`,
      ]);
    }
    const loaded = await TfjsPolicy.load(dir);
    expect(loaded.version).toBe(0);
    policy.dispose();
    loaded.dispose();
  });
});
