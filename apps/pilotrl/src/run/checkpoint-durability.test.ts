import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TfjsPolicy, Tokenizer } from '@pilotrl/policy-tfjs';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { latestCheckpoint, readTrainerState, saveCheckpoint, type TrainerState } from './checkpoint';
import { runPaths, writeFileAtomic } from './run-dir';

// Every flush and rename the run directory's writers make, in order, by path.
const { events } = vi.hoisted(() => ({ events: [] as string[] }));
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  const opened = new Map<number, string>();
  return {
    ...actual,
    openSync(...args: Parameters<typeof actual.openSync>) {
      const fd = actual.openSync(...args);
      opened.set(fd, String(args[0]));
      return fd;
    },
    closeSync(fd: number) {
      opened.delete(fd);
      actual.closeSync(fd);
    },
    fsyncSync(fd: number) {
      events.push(`fsync ${opened.get(fd)}`);
      actual.fsyncSync(fd);
    },
    renameSync(from: string, to: string) {
      events.push(`rename ${from} ${to}`);
      actual.renameSync(from, to);
    },
  };
});

const root = mkdtempSync(join(tmpdir(), 'pilotrl-durable-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
beforeEach(() => {
  events.length = 0;
});

describe('run directory durability', () => {
  it('writeFileAtomic flushes the file before the rename and the directory after it', () => {
    const path = join(root, 'atomic', 'config.json');
    const temp = `${path}.tmp-${process.pid}`;
    writeFileAtomic(path, '{}\n');
    expect(events).toEqual([`fsync ${temp}`, `rename ${temp} ${path}`, `fsync ${join(root, 'atomic')}`]);
  });

  it('a checkpoint flushes the logs, its files and each directory before the step that depends on it', async () => {
    const runDir = join(root, 'run');
    const paths = runPaths(runDir);
    mkdirSync(paths.checkpoints, { recursive: true });
    writeFileSync(paths.metrics, '{"iteration":1}\n');
    const policy = await TfjsPolicy.create({
      tokenizer: Tokenizer.train(['go north'], { vocabSize: 270 }),
      model: { dModel: 16, nLayers: 1, nHeads: 2, contextLength: 16, seed: 1 },
    });
    const state: TrainerState = {
      format: 1,
      phase: 0,
      iteration: 1,
      globalIteration: 1,
      rngState: [1, 2, 3, 4],
      policyVersion: 0,
      logBytes: { metrics: 16 },
      phaseState: { kept: [] },
    };
    const dir = await saveCheckpoint(paths.checkpoints, state, policy, 2);
    policy.dispose();
    const temp = join(paths.checkpoints, `.tmp-iter-000001-${process.pid}`);
    const latest = join(paths.checkpoints, 'latest');
    expect(events).toEqual([
      `fsync ${paths.metrics}`,
      `fsync ${join(temp, 'phase-state.json')}`,
      `fsync ${join(temp, 'trainer.json')}`,
      `fsync ${temp}`,
      `rename ${temp} ${dir}`,
      `fsync ${paths.checkpoints}`,
      `fsync ${latest}.tmp-${process.pid}`,
      `rename ${latest}.tmp-${process.pid} ${latest}`,
      `fsync ${paths.checkpoints}`,
    ]);
    expect(latestCheckpoint(paths.checkpoints)).toBe(dir);
    expect(readTrainerState(dir)).toEqual(state);
  });
});
