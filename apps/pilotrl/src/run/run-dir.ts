// The run directory: everything needed to trust and repeat a run. It holds the resolved config,
// a manifest (every seed, package versions, data hashes, platform), metrics and sampled episodes
// as JSONL (metrics and evaluations also as a TensorBoard event file), atomic checkpoints and the report.
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { CheckpointError, describeIssues, printable } from '@pilotrl/core';
import { stringify as toYaml } from 'yaml';
import { z } from 'zod';
import { type CurriculumConfig, parseConfig } from '../config/curriculum-config';

export const runManifestSchema = z.object({
  name: z.string(),
  createdAt: z.string(),
  command: z.array(z.string()),
  /** Every seed the run derives from the master seed, by purpose. */
  seeds: z.record(z.string(), z.number()),
  /** Versions of every @pilotrl package and key dependency that ran. */
  packages: z.record(z.string(), z.string()),
  /** SHA-256 of every data input (env task lists, tokenizer corpus, files). */
  dataHashes: z.record(z.string(), z.string()),
  platform: z.object({
    node: z.string(),
    os: z.string(),
    arch: z.string(),
    /** The tfjs backend that ran, TensorFlow's version on a native one, and why faster ones were skipped. */
    backend: z.string().optional(),
    tensorflowVersion: z.string().optional(),
    backendSkipped: z.record(z.string(), z.string()).optional(),
  }),
  /** The finished run this one started from, and the checkpoint and number of phases it took. */
  forkedFrom: z.object({ run: z.string(), checkpoint: z.string(), phases: z.number() }).optional(),
});
export type RunManifest = z.infer<typeof runManifestSchema>;

export const runPaths = (runDir: string) => ({
  config: join(runDir, 'config.yaml'),
  configJson: join(runDir, 'config.json'),
  manifest: join(runDir, 'manifest.json'),
  metrics: join(runDir, 'metrics.jsonl'),
  episodes: join(runDir, 'episodes.jsonl'),
  evals: join(runDir, 'evals.jsonl'),
  /** TensorBoard reads every file whose name holds `tfevents` (tensorboard-log.ts writes it). */
  tensorboard: join(runDir, 'events.out.tfevents.pilotrl'),
  checkpoints: join(runDir, 'checkpoints'),
  report: join(runDir, 'report'),
});

// A rename is atomic, but without fsync the kernel may put the new name on the disk before the
// file's data, and a power loss then leaves a renamed-but-empty file: files are flushed before they
// are renamed or recorded, and directories after names are created or renamed in them.
function flush(path: string, flags: string): void {
  const fd = openSync(path, flags);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Flushes the data of the file at `path` to the disk. */
export function fsyncFile(path: string): void {
  flush(path, 'r+');
}

/** Flushes the entries of `dir` (files created in it, renamed into it) to the disk. */
export function fsyncDir(dir: string): void {
  // Windows refuses to flush a directory (EPERM); there the rename is left to NTFS's journal.
  if (process.platform !== 'win32') flush(dir, 'r');
}

/** Writes `text` to `path` and flushes it to the disk before returning. */
export function writeFileDurable(path: string, text: string | Uint8Array): void {
  const fd = openSync(path, 'w');
  try {
    writeFileSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes `text` to `path` through a flushed temporary file and a rename, then flushes the
 * directory: readers never see half a file, and once it returns a power loss cannot undo it.
 */
export function writeFileAtomic(path: string, text: string | Uint8Array): void {
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.tmp-${process.pid}`;
  writeFileDurable(temp, text);
  renameSync(temp, path);
  fsyncDir(dirname(path));
}

export function sha256(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The default run directory for a config: runs/<name>-<UTC timestamp>. */
export function defaultRunDir(config: CurriculumConfig, root = 'runs', now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\..*/, '').replace('T', '-');
  return resolve(root, `${config.name}-${stamp}`);
}

export function createRunDir(runDir: string, config: CurriculumConfig, manifest: RunManifest): void {
  const paths = runPaths(runDir);
  if (existsSync(paths.manifest)) {
    throw new CheckpointError(
      `${runDir} already holds a run; pass --resume ${runDir} to continue it, or choose a new --out`,
    );
  }
  // Without a manifest nothing was trained here (a run cut short while its directory was made):
  // what it wrote goes, so the new run's logs start empty.
  for (const path of [paths.metrics, paths.episodes, paths.evals, paths.tensorboard])
    rmSync(path, { force: true });
  rmSync(paths.checkpoints, { recursive: true, force: true });
  mkdirSync(paths.checkpoints, { recursive: true });
  writeFileAtomic(paths.config, toYaml(config));
  writeFileAtomic(paths.configJson, `${JSON.stringify(config, null, 2)}\n`);
  writeFileAtomic(paths.manifest, `${JSON.stringify(manifest, null, 2)}\n`);
  // The run directory's own name, so its checkpoints cannot outlive it on the disk.
  fsyncDir(dirname(resolve(runDir)));
}

export function readRunConfig(runDir: string): CurriculumConfig {
  const paths = runPaths(runDir);
  if (!existsSync(paths.configJson)) {
    throw new CheckpointError(`${runDir} is not a run directory: ${paths.configJson} is missing`);
  }
  if (!existsSync(paths.manifest)) {
    throw new CheckpointError(
      `${runDir} was cut short while it was being made (no manifest.json): nothing was trained there; start a new run with --out ${runDir}`,
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(paths.configJson, 'utf8'));
  } catch (cause) {
    throw new CheckpointError(`${paths.configJson} is damaged: ${printable((cause as Error).message)}`, {
      cause,
    });
  }
  return parseConfig(raw, paths.configJson);
}

export function readManifest(runDir: string): RunManifest {
  const path = runPaths(runDir).manifest;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (cause) {
    throw new CheckpointError(`${path} is damaged: ${printable((cause as Error).message)}`, { cause });
  }
  const parsed = runManifestSchema.safeParse(raw);
  if (!parsed.success) {
    throw new CheckpointError(`${path} is damaged: ${describeIssues(parsed.error.issues).join('; ')}`);
  }
  return parsed.data;
}

/** The directory of package `name` as seen from `from` (node_modules lookup), or undefined. */
function packageDir(name: string, from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    if (dirname(dir) === dir) return undefined;
  }
}

const versionOf = (dir: string) =>
  (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;

/**
 * This app's folder: the nearest one above this module holding its package.json (`src/run/` when
 * run from the sources, `dist/` when built).
 */
function appRoot(): string {
  for (let dir = import.meta.dirname; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'pilotrl'
    ) {
      return dir;
    }
    if (dirname(dir) === dir) throw new Error(`no package.json of pilotrl above ${import.meta.dirname}`);
  }
}

/**
 * Versions of this app and of the named packages. A package not visible from the app (a
 * dependency of a dependency) is looked up from the app's direct dependencies in turn.
 */
export function packageVersions(names: readonly string[], appDir = appRoot()): Record<string, string> {
  const versions: Record<string, string> = { pilotrl: versionOf(appDir) };
  const direct = Object.keys(
    (
      JSON.parse(readFileSync(join(appDir, 'package.json'), 'utf8')) as {
        dependencies?: Record<string, string>;
      }
    ).dependencies ?? {},
  ).flatMap((dep) => packageDir(dep, appDir) ?? []);
  for (const name of names) {
    if (name === 'pilotrl') continue;
    const dir = [appDir, ...direct]
      .map((from) => packageDir(name, from))
      .find((found) => found !== undefined);
    versions[name] = dir === undefined ? 'not installed' : versionOf(dir);
  }
  return versions;
}

const LOCK = 'train.lock';
/** `createLock`'s temporary file, named by the process that asks for the lock. */
const LOCK_TEMP = /^train\.lock\.tmp-(\d+)$/;

/** Whether process `pid` is alive on this machine. */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Creates the lock at `path` holding this process's id, or returns false when a lock is there. The
 * id is written and flushed in a temporary file that is then linked to `path`: a link is atomic and
 * never replaces, so the lock is never seen without its holder's id (a trainer that read an empty
 * lock would take it over, and two would train one directory). The temporary file goes either way.
 */
function createLock(path: string): boolean {
  const temp = `${path}.tmp-${process.pid}`;
  try {
    writeFileDurable(temp, `${process.pid}\n`);
    linkSync(temp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(temp, { force: true });
  }
}

/** The process id in the lock at `path`, or undefined when the lock is gone. */
function lockHolder(path: string, runDir: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  // Locks are created whole, so one without an id was left by a pilotrl that wrote the id after
  // creating the file (and may be writing it now), or was damaged: it is not taken over.
  if (!/^\d+\n?$/.test(text)) {
    throw new CheckpointError(
      `${path} holds no process id ("${printable(text, 40)}"): it was left by an older pilotrl or damaged; if no trainer is using ${runDir}, delete it and run again`,
    );
  }
  return Number(text);
}

/**
 * Takes `runDir` for this process: one trainer at a time per run directory. A lock left by a
 * process that is gone is taken over, and what that process left half-written (temporary checkpoint
 * directories and files) is removed. Returns the release.
 */
export function lockRunDir(runDir: string): () => void {
  mkdirSync(runDir, { recursive: true });
  const path = join(runDir, LOCK);
  for (let attempt = 0; !createLock(path); attempt++) {
    const holder = lockHolder(path, runDir);
    if (holder !== undefined && processAlive(holder)) {
      throw new CheckpointError(
        `${runDir} is being trained by process ${holder}; wait for it to finish or stop it (a run directory takes one trainer at a time)`,
      );
    }
    if (attempt > 0) {
      throw new CheckpointError(
        `${path} changed while this trainer took it over from a process that is gone; run again`,
      );
    }
    rmSync(path, { force: true });
  }
  removeLeftovers(runDir);
  return () => rmSync(path, { force: true });
}

/** Temporary files and checkpoint directories (`*.tmp-<pid>`, `.tmp-iter-*`) a killed trainer left. */
function removeLeftovers(runDir: string): void {
  const checkpoints = runPaths(runDir).checkpoints;
  for (const dir of [runDir, checkpoints]) {
    if (!existsSync(dir)) continue;
    for (const entry of readdirSync(dir)) {
      // A lock's temporary file is another trainer's while it asks for the lock: kept while it lives.
      const asking = LOCK_TEMP.exec(entry);
      if (asking !== null && processAlive(Number(asking[1]))) continue;
      if (/\.tmp-\d+$/.test(entry) || /^\.tmp-/.test(entry)) {
        rmSync(join(dir, entry), { recursive: true, force: true });
      }
    }
  }
}
