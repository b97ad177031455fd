// Writes that survive a power loss. A rename is atomic, but without fsync the kernel may put the
// new name on the disk before the file's data, and a crash then leaves a renamed-but-empty file:
// each file is flushed before it is renamed, and the directory after.
import { open } from 'node:fs/promises';

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
