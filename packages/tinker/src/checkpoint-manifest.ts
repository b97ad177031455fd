// The local side of a Tinker checkpoint: the weights stay on the server (`tinker://…/weights/…`),
// and `saveState(dir)` writes a small JSON manifest naming them, written atomically (a temporary
// file renamed over the old one), so that `loadState(dir)` can resume from it.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CheckpointError, describeIssues } from '@pilotrl/core';
import { z } from 'zod';

export const MANIFEST_FILE = 'tinker-checkpoint.json';

export const checkpointManifestSchema = z.object({
  format: z.literal('pilotrl-tinker-checkpoint'),
  formatVersion: z.literal(1),
  /** The server's path of the saved training state (weights and optimizer). */
  tinkerPath: z.string().regex(/^tinker:\/\/[^/]+\/weights\/[^/]+$/),
  baseUrl: z.string(),
  baseModel: z.string(),
  loraRank: z.number().int().nonnegative(),
  /** The policy version (optimizer steps) the state was saved at. */
  policyVersion: z.number().int().nonnegative(),
  savedAt: z.string(),
});
export type CheckpointManifest = z.infer<typeof checkpointManifestSchema>;

export async function writeManifest(dir: string, manifest: CheckpointManifest): Promise<void> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, MANIFEST_FILE);
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(manifest, null, 2)}\n`);
  await rename(temporary, path);
}

export async function readManifest(dir: string): Promise<CheckpointManifest> {
  const path = join(dir, MANIFEST_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new CheckpointError(
      `No Tinker checkpoint in ${dir}: cannot read ${MANIFEST_FILE} (${(error as Error).message})`,
      {
        cause: error,
      },
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new CheckpointError(`${path} is not JSON; was it written by saveState?`);
  }
  const parsed = checkpointManifestSchema.safeParse(json);
  if (!parsed.success) {
    throw new CheckpointError(
      `${path} is not a Tinker checkpoint manifest:\n  ${describeIssues(parsed.error.issues).join('\n  ')}`,
    );
  }
  return parsed.data;
}
