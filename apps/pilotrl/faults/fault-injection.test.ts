// The trainer killed (SIGKILL) before every file operation of making its run directory and of two
// of its checkpoints (the first, and one that prunes an older checkpoint), then resumed: the run
// ends exactly as the run nobody killed (its JSONL logs and TensorBoard event file too), leaves no
// temporary files or lock behind, and its report is written. Two trainers on one directory: the
// second is refused.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli';
import { writeReport } from '../src/reporting/report';
import { readJsonl } from '../src/run/jsonl';
import {
  capturedIo,
  eventsWithoutMeasuredCosts,
  resumableCurriculumYaml,
  withoutMeasuredCosts,
} from '../src/tiny-corridor.testing';

const appDir = join(import.meta.dirname, '..');
const bin = join(appDir, 'src', 'bin.ts');
const preload = join(import.meta.dirname, 'fs-faults.ts');

const CONFIG = resumableCurriculumYaml({ name: 'fault-injection', evalEvery: 2, checkpointEvery: 1 });

/** `pilotrl <args>` from source in a child process, with the file-fault preload set by `faults`. */
function pilotrlChild(args: string[], faults: { dir: string; at: number; log?: string }) {
  const child = spawn(
    process.execPath,
    ['--conditions=@pilotrl/source', '--import', 'tsx', '--import', preload, bin, ...args],
    {
      cwd: appDir,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: {
        ...process.env,
        PILOTRL_FS_FAULT_DIR: faults.dir,
        PILOTRL_FS_FAULT_AT: String(faults.at),
        ...(faults.log === undefined ? {} : { PILOTRL_FS_FAULT_LOG: faults.log }),
      },
    },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise<{ code: number | null; signal: NodeJS.Signals | null; lastLine: string }>((resolve) =>
    child.on('close', (code, signal) =>
      resolve({ code, signal, lastLine: stderr.trim().split('\n').at(-1) ?? '' }),
    ),
  );
}

const train = (configPath: string, runDir: string, at: number, log?: string) =>
  pilotrlChild(['train', '--config', configPath, '--out', runDir, '--no-report'], {
    dir: runDir,
    at,
    ...(log === undefined ? {} : { log }),
  });

/** Runs `work` over `items`, `width` at a time. */
async function inPool<T>(
  items: readonly T[],
  width: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
    }),
  );
}

const LOGS = ['metrics.jsonl', 'evals.jsonl', 'episodes.jsonl'];

/** Every path under `dir`, relative to it. */
function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((path) =>
    relative(dir, join(dir, path)),
  );
}

interface Operation {
  index: number;
  name: string;
  path: string;
}

/**
 * The operations to kill before: those of making the run directory and of the first checkpoint
 * (up to its `latest` pointer), and those of the checkpoint that prunes the oldest one. An append's
 * inner write is the same point as the append, so it is not tried twice.
 */
function killPoints(operations: readonly Operation[]): Operation[] {
  const firstLatest = operations.findIndex(
    (op) => op.name === 'renameSync' && op.path.includes('latest.tmp'),
  );
  // The prune is the first removal of a checkpoint that is not the one being renamed into place
  // (which its own save clears first). It is found by its rmSync, which every Node line reports,
  // not by the rmdirSync calls inside it, which only Node 20's rmSync makes.
  const prune = operations.findIndex(
    (op, i) =>
      op.name === 'rmSync' &&
      /[/\\]iter-\d+$/.test(op.path) &&
      !(operations[i + 1]?.name === 'renameSync' && operations[i + 1]!.path.includes('.tmp-iter-')),
  );
  if (prune === -1) throw new Error('no checkpoint was pruned in the run nobody killed');
  const pruneStart = operations.findLastIndex(
    (op, i) => i < prune && op.name === 'mkdirSync' && op.path.includes('.tmp-iter-'),
  );
  const chosen = [
    ...operations.slice(0, firstLatest + 3),
    ...operations.slice(
      pruneStart - 2,
      operations.findIndex((op, i) => i > prune && op.name !== 'rmdirSync'),
    ),
  ];
  return chosen.filter(
    (op) => !(op.name === 'writeFileSync' && operations[op.index - 2]?.name === 'appendFileSync'),
  );
}

describe('a trainer killed at any file operation', () => {
  it('resumes to the same results, with nothing left behind and a report', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pilotrl-faults-'));
    const configPath = join(dir, 'config.yaml');
    writeFileSync(configPath, CONFIG);

    const straight = join(dir, 'straight');
    const log = join(dir, 'operations.log');
    const full = await train(configPath, straight, 0, log);
    expect(full.code, full.lastLine).toBe(0);
    const operations = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((line) => {
        const [index, name, path] = line.split(' ');
        return { index: Number(index), name: name!, path: path! };
      });
    // PILOTRL_FAULT_POINTS=50,51 tries only those operations (to look into a failure).
    const only = process.env.PILOTRL_FAULT_POINTS?.split(',').map(Number);
    const points = killPoints(operations).filter((op) => only === undefined || only.includes(op.index));
    if (only === undefined) {
      expect(points.length).toBeGreaterThan(40);
      // Node 20's recursive rmSync removes directories with rmdirSync, which the preload sees as kill
      // points of their own; from Node 22 it does so natively, inside the one rmSync call.
      expect([...new Set(points.map((op) => op.name))]).toEqual(
        expect.arrayContaining(['linkSync', 'renameSync', 'fsyncSync', 'rmSync', 'rename', 'handle.sync']),
      );
    }
    const expected = Object.fromEntries(
      LOGS.map((file) => [file, withoutMeasuredCosts(readJsonl(join(straight, file)))]),
    );
    const expectedEvents = JSON.stringify(eventsWithoutMeasuredCosts(straight));

    const failures: string[] = [];
    // Two kill points at a time: each is a killed trainer and the one that finishes its run.
    await inPool(points, 2, async (point) => {
      const runDir = join(dir, `killed-${point.index}`);
      const where = `killed before operation ${point.index} (${point.name} ${relative(straight, point.path)})`;
      const killed = await train(configPath, runDir, point.index);
      if (killed.signal !== 'SIGKILL') {
        failures.push(`${where}: the trainer was not killed (exit ${killed.code}: ${killed.lastLine})`);
        return;
      }
      // A run killed before its manifest was written trained nothing: it is started again.
      const args = existsSync(join(runDir, 'manifest.json'))
        ? ['train', '--resume', runDir, '--no-report']
        : ['train', '--config', configPath, '--out', runDir, '--no-report'];
      const finished = await pilotrlChild(args, { dir: runDir, at: 0 });
      if (finished.code !== 0) {
        failures.push(`${where}: ${args[1]} exited ${finished.code}: ${finished.lastLine}`);
        return;
      }
      for (const file of LOGS) {
        const actual = withoutMeasuredCosts(readJsonl(join(runDir, file)));
        if (JSON.stringify(actual) !== JSON.stringify(expected[file])) {
          failures.push(`${where}: ${file} differs from the run nobody killed`);
        }
      }
      try {
        if (JSON.stringify(eventsWithoutMeasuredCosts(runDir)) !== expectedEvents) {
          failures.push(`${where}: the TensorBoard event file differs from the run nobody killed`);
        }
      } catch (error) {
        failures.push(`${where}: the TensorBoard event file is damaged: ${(error as Error).message}`);
      }
      const leftovers = tree(runDir).filter((path) => /\.tmp|train\.lock/.test(path));
      if (leftovers.length > 0) failures.push(`${where}: left ${leftovers.join(', ')}`);
      const checkpoints = readdirSync(join(runDir, 'checkpoints')).filter((name) => name !== 'latest');
      if (checkpoints.length > 2) failures.push(`${where}: keeps ${checkpoints.join(', ')} (keep is 2)`);
      try {
        const { html } = writeReport(runDir);
        if (statSync(html).size === 0) failures.push(`${where}: empty report`);
      } catch (error) {
        failures.push(`${where}: report failed: ${(error as Error).message}`);
      }
      rmSync(runDir, { recursive: true, force: true });
    });
    expect(failures).toEqual([]);
  }, 1_800_000);

  it('refuses a second trainer on a directory a live one holds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pilotrl-faults-lock-'));
    const configPath = join(dir, 'config.yaml');
    writeFileSync(configPath, CONFIG);
    const runDir = join(dir, 'run');
    const first = train(configPath, runDir, 0);
    while (!existsSync(join(runDir, 'manifest.json')))
      await new Promise((resolve) => setTimeout(resolve, 50));
    const io = capturedIo();
    const second = await runCli(['train', '--resume', runDir, '--no-report'], io);
    expect(second).toBe(1);
    expect(io.err()).toMatch(/^pilotrl train: .* is being trained by process \d+; wait for it/m);
    expect((await first).code).toBe(0);
  }, 120_000);
});
