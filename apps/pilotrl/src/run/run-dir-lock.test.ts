// The run directory's lock: it appears whole (linked from a flushed file that holds its holder's id),
// a live holder keeps it, a gone one's is taken over, and no temporary file outlives an attempt.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheckpointError } from '@pilotrl/core';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { lockRunDir } from './run-dir';

// Every open, write, flush and link by path; a link records what its source held then.
const fsLog = vi.hoisted(() => ({ events: [] as string[], failLink: undefined as Error | undefined }));
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  const opened = new Map<number, string>();
  return {
    ...actual,
    openSync(...args: Parameters<typeof actual.openSync>) {
      const fd = actual.openSync(...args);
      opened.set(fd, String(args[0]));
      fsLog.events.push(`open ${String(args[0])}`);
      return fd;
    },
    closeSync(fd: number) {
      opened.delete(fd);
      actual.closeSync(fd);
    },
    writeFileSync(...args: Parameters<typeof actual.writeFileSync>) {
      if (typeof args[0] !== 'number') fsLog.events.push(`write ${String(args[0])}`);
      actual.writeFileSync(...args);
    },
    fsyncSync(fd: number) {
      fsLog.events.push(`fsync ${opened.get(fd)}`);
      actual.fsyncSync(fd);
    },
    linkSync(from: string, to: string) {
      fsLog.events.push(`link ${from} ${to} holding ${JSON.stringify(actual.readFileSync(from, 'utf8'))}`);
      if (fsLog.failLink !== undefined) throw fsLog.failLink;
      actual.linkSync(from, to);
    },
  };
});

const root = mkdtempSync(join(tmpdir(), 'pilotrl-lock-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
beforeEach(() => {
  fsLog.events.length = 0;
  fsLog.failLink = undefined;
});

/** A fresh run directory and its lock's path. */
function runDirAndLock(name: string): { runDir: string; lock: string } {
  const runDir = join(root, name);
  return { runDir, lock: join(runDir, 'train.lock') };
}

/** A process id no process has (above Linux's and macOS's limits). */
const GONE = 2147483646;

describe('a run directory lock', () => {
  it("appears only by a link from a flushed file that already holds the holder's id", () => {
    const { runDir, lock } = runDirAndLock('link');
    const release = lockRunDir(runDir);
    const temp = `${lock}.tmp-${process.pid}`;
    const lockEvents = fsLog.events.filter((event) => event.includes('train.lock'));
    expect(lockEvents).toEqual([
      `open ${temp}`,
      `fsync ${temp}`,
      `link ${temp} ${lock} holding "${process.pid}\\n"`,
    ]);
    expect(readFileSync(lock, 'utf8')).toBe(`${process.pid}\n`);
    expect(readdirSync(runDir)).toEqual(['train.lock']);
    release();
    expect(readdirSync(runDir)).toEqual([]);
  });

  it('refuses a second trainer while a live one holds it, and leaves no temporary file', () => {
    const { runDir, lock } = runDirAndLock('held');
    const release = lockRunDir(runDir);
    expect(() => lockRunDir(runDir)).toThrow(
      new CheckpointError(
        `${runDir} is being trained by process ${process.pid}; wait for it to finish or stop it (a run directory takes one trainer at a time)`,
      ),
    );
    expect(readdirSync(runDir)).toEqual(['train.lock']);
    expect(readFileSync(lock, 'utf8')).toBe(`${process.pid}\n`);
    release();
  });

  it("takes over a gone process's lock and sweeps its temporary file, but not a live one's", () => {
    const { runDir, lock } = runDirAndLock('gone');
    lockRunDir(runDir);
    writeFileSync(lock, `${GONE}\n`);
    writeFileSync(`${lock}.tmp-${GONE}`, `${GONE}\n`);
    writeFileSync(`${lock}.tmp-${process.ppid}`, `${process.ppid}\n`);
    const release = lockRunDir(runDir);
    expect(readFileSync(lock, 'utf8')).toBe(`${process.pid}\n`);
    expect(readdirSync(runDir).sort()).toEqual(['train.lock', `train.lock.tmp-${process.ppid}`]);
    release();
  });

  it('refuses a lock without a process id, naming an older pilotrl or damage, and leaves it', () => {
    const { runDir, lock } = runDirAndLock('no-id');
    lockRunDir(runDir);
    const unreadable: [held: string, quoted: string][] = [
      ['', '""'],
      ['12ab\n', '"12ab\\u000a"'],
    ];
    for (const [held, quoted] of unreadable) {
      writeFileSync(lock, held);
      expect(() => lockRunDir(runDir)).toThrow(
        `${lock} holds no process id (${quoted}): it was left by an older pilotrl or damaged; if no trainer is using ${runDir}, delete it and run again`,
      );
      expect(readFileSync(lock, 'utf8')).toBe(held);
      expect(readdirSync(runDir)).toEqual(['train.lock']);
    }
  });

  it('leaves no temporary file when the link fails', () => {
    const { runDir } = runDirAndLock('link-fails');
    fsLog.failLink = Object.assign(new Error('EPERM: operation not permitted, link'), { code: 'EPERM' });
    expect(() => lockRunDir(runDir)).toThrow('EPERM: operation not permitted, link');
    expect(readdirSync(runDir)).toEqual([]);
  });
});
