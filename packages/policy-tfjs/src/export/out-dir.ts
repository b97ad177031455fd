// The output directory of an export: it must be new or empty, so an export never mixes its files
// with others or overwrites a model; checked before anything is read or written.
import { readdir } from 'node:fs/promises';
import { InvalidArgumentError } from '@pilotrl/core';

/** Passes when `dir` is missing or an empty directory; refuses anything else in one line. */
export async function checkOutDir(dir: string): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    throw new InvalidArgumentError(
      `output ${dir} cannot be used (${code ?? (error as Error).message}); give a new or empty directory`,
    );
  }
  if (entries.length > 0) {
    throw new InvalidArgumentError(
      `output ${dir} is not empty (it holds ${entries.slice(0, 3).join(', ')}${entries.length > 3 ? ', …' : ''}); give a new or empty directory`,
    );
  }
}
