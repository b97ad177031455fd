// Writes that survive a power loss. A rename is atomic, but without fsync the kernel may put the
// new name on the disk before the file's data, and a crash then leaves a renamed-but-empty file:
// each file is flushed before it is renamed, and the directory after. A directory of files is
// written under a temporary name and renamed into place. A rename cannot replace a directory that
// holds files, so a replace first moves the old one aside: a process killed between the two renames
// leaves nothing at the path and the old directory, complete, aside. The next write and every reader
// put it back first (`restoreReplacedDir`), so they see the old directory or the new one.
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { CheckpointError } from '@pilotrl/core';

/** Writes `data` to `path` and flushes it to the disk before resolving. */
export async function writeFileDurable(path: string, data: string | Uint8Array): Promise<void> {
  const handle = await open(path, 'w');
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Flushes the entries of `dir` (files created in it, renamed into it) to the disk. */
export async function fsyncDir(dir: string): Promise<void> {
  // Windows refuses to flush a directory (EPERM); there the rename is left to NTFS's journal.
  if (process.platform === 'win32') return;
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** `dir`'s siblings that a write of it makes: the new directory (`tmp`) and the old one moved aside (`old`). */
const siblingPrefix = (dir: string, kind: 'tmp' | 'old') => `.${basename(dir)}.${kind}-`;

/** The names of `dir`'s `kind` siblings, oldest write first (their ids are `<pid>-<ms>-<random>`). */
async function siblingsOf(dir: string, kind: 'tmp' | 'old'): Promise<string[]> {
  const prefix = siblingPrefix(dir, kind);
  let entries: string[];
  try {
    entries = await readdir(dirname(dir));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const writtenAt = (name: string) => Number(name.slice(prefix.length).split('-')[1]);
  return entries.filter((name) => name.startsWith(prefix)).sort((a, b) => writtenAt(a) - writtenAt(b));
}

/**
 * Puts back the directory that a replace of `dir` moved aside, when the process was killed before it
 * renamed the new one in and left nothing at `dir`. Writers and readers of `dir` call it first.
 */
export async function restoreReplacedDir(dir: string): Promise<void> {
  try {
    await stat(dir);
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return;
  }
  const aside = (await siblingsOf(dir, 'old')).at(-1);
  if (aside === undefined) return;
  try {
    await rename(join(dirname(dir), aside), dir);
    await fsyncDir(dirname(dir));
  } catch (error) {
    throw new CheckpointError(
      `${dir} is missing, and ${aside}, which a killed write of it moved aside, could not be put back: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/**
 * Writes `files` (name, contents) as the directory `dir`, replacing any directory there at once:
 * they are written and flushed in a temporary sibling, which is renamed into place. A failure
 * leaves what was there and throws a `CheckpointError` that names `what` and `dir`. A directory
 * takes one writer at a time: what other writes of it left (killed ones) is removed.
 */
export async function writeDirDurable(
  dir: string,
  files: readonly (readonly [name: string, data: string | Uint8Array])[],
  what: string,
): Promise<void> {
  const unique = `${process.pid}-${Date.now()}-${Math.floor(Math.random() * 1e9)}`;
  const staging = join(dirname(dir), `${siblingPrefix(dir, 'tmp')}${unique}`);
  const retired = join(dirname(dir), `${siblingPrefix(dir, 'old')}${unique}`);
  try {
    await restoreReplacedDir(dir);
    await mkdir(staging, { recursive: true });
    for (const [name, data] of files) await writeFileDurable(join(staging, name), data);
    await fsyncDir(staging);
    let replaced = false;
    try {
      await rename(dir, retired);
      replaced = true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    try {
      await rename(staging, dir);
    } catch (error) {
      // Should the old directory not go back either, the next write or read puts it back.
      if (replaced) await rename(retired, dir).catch(() => undefined);
      throw error;
    }
    await fsyncDir(dirname(dir));
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw new CheckpointError(`could not write ${what} to ${dir}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  // The write is done: what is left aside is removed, or by the next write should this fail.
  await removeSiblings(dir).catch(() => undefined);
}

/** Removes the directories that writes of `dir` moved aside or left half-written. */
async function removeSiblings(dir: string): Promise<void> {
  for (const kind of ['old', 'tmp'] as const) {
    for (const name of await siblingsOf(dir, kind)) {
      await rm(join(dirname(dir), name), { recursive: true, force: true });
    }
  }
}
