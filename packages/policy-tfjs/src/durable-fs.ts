// Writes that survive a power loss. A rename is atomic, but without fsync the kernel may put the
// new name on the disk before the file's data, and a crash then leaves a renamed-but-empty file:
// each file is flushed before it is renamed, and the directory after. A directory of files is
// written under a temporary name and renamed into place, so readers see the old one or the new one.
import { mkdir, open, rename, rm } from 'node:fs/promises';
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

/**
 * Writes `files` (name, contents) as the directory `dir`, replacing any directory there at once:
 * they are written and flushed in a temporary sibling, which is renamed into place. A failure
 * leaves what was there and throws a `CheckpointError` that names `what` and `dir`.
 */
export async function writeDirDurable(
  dir: string,
  files: readonly (readonly [name: string, data: string | Uint8Array])[],
  what: string,
): Promise<void> {
  const unique = `${process.pid}-${Date.now()}-${Math.floor(Math.random() * 1e9)}`;
  const staging = join(dirname(dir), `.${basename(dir)}.tmp-${unique}`);
  const retired = join(dirname(dir), `.${basename(dir)}.old-${unique}`);
  await mkdir(staging, { recursive: true });
  try {
    for (const [name, data] of files) await writeFileDurable(join(staging, name), data);
    await fsyncDir(staging);
    let replaced = false;
    try {
      await rename(dir, retired);
      replaced = true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    await rename(staging, dir);
    await fsyncDir(dirname(dir));
    if (replaced) await rm(retired, { recursive: true, force: true });
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw new CheckpointError(`could not write ${what} to ${dir}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}
