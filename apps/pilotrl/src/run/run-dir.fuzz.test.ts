// Fuzzing of run directories: one real run directory (config, manifest, logs, a checkpoint with a
// phase state), copied and damaged: files cut short, bytes flipped, files deleted or replaced by
// directories, JSON fields given wrong types or huge values, the `latest` pointer rewritten. What a
// resume, a fork and the report read is refused with a PilotRLError whose message is bounded and
// carries no stack frame or control characters, or passes its schema; a checkpoint that is read is
// the one that was saved.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createRng, PilotRLError, type Rng } from '@pilotrl/core';
import { TfjsPolicy, Tokenizer } from '@pilotrl/policy-tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tinyCorridorConfig } from '../tiny-corridor.testing';
import { latestCheckpoint, readTrainerState, saveCheckpoint, type TrainerState } from './checkpoint';
import { JsonlWriter } from './jsonl';
import { createRunDir, type RunManifest, readManifest, readRunConfig, runPaths } from './run-dir';
import { readEvals, readMetrics, readSampledEpisodes } from './run-records';

const root = mkdtempSync(join(tmpdir(), 'pilotrl-run-dir-fuzz-'));
const original = join(root, 'original');
const state: TrainerState = {
  format: 1,
  phase: 1,
  iteration: 1,
  globalIteration: 3,
  rngState: createRng(7).state(),
  policyVersion: 3,
  logBytes: { metrics: 0, episodes: 0, evals: 0 },
  phaseState: { kept: [{ taskId: 'train-1', actions: ['go east'] }] },
};
const manifest: RunManifest = {
  name: 'tiny-1',
  createdAt: '2025-01-01T00:00:00.000Z',
  command: ['pilotrl', 'train'],
  seeds: { master: 1 },
  packages: { pilotrl: '0.1.0' },
  dataHashes: {},
  platform: { node: 'v20', os: 'linux', arch: 'x64', backend: 'wasm' },
};
const metrics = { step: 1, phase: 'joint', phaseIndex: 0, iteration: 1, 'charts/success_rate': 0.5 };

beforeAll(async () => {
  createRunDir(original, tinyCorridorConfig(1), manifest);
  const paths = runPaths(original);
  new JsonlWriter(paths.metrics).append(metrics);
  new JsonlWriter(paths.evals).append({
    step: 1,
    phase: 'joint',
    split: 'valid_unseen',
    paradigm: 'adaplan',
    success: { successes: 1, total: 2, rate: 0.5, low: 0.1, high: 0.9 },
    byTaskType: {},
    meanSteps: 3,
    formatErrorRate: 0,
    judgeScore: null,
  });
  const policy = await TfjsPolicy.create({
    tokenizer: Tokenizer.train(['go east', 'go west'], { vocabSize: 270 }),
    model: { dModel: 8, nLayers: 1, nHeads: 2, contextLength: 8, seed: 1 },
  });
  await saveCheckpoint(paths.checkpoints, state, policy, 1);
  policy.dispose();
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const CONTROL = /(?![\n\t])\p{Cc}/u;

/** Everything a resume, a fork and the report read from a run directory. */
function readRun(runDir: string) {
  const paths = runPaths(runDir);
  const config = readRunConfig(runDir);
  const checkpoint = latestCheckpoint(paths.checkpoints);
  return {
    config,
    manifest: readManifest(runDir),
    checkpoint: checkpoint === undefined ? undefined : basename(checkpoint),
    state: checkpoint === undefined ? undefined : readTrainerState(checkpoint),
    metrics: readMetrics(paths.metrics),
    evals: readEvals(paths.evals),
    episodes: readSampledEpisodes(paths.episodes),
  };
}

const strangeValues: unknown[] = [
  'x',
  '',
  null,
  true,
  [],
  {},
  -1,
  1.5,
  1e308,
  2 ** 53,
  '\u0000\u001b[2J',
  'w'.repeat(20_000),
  Array.from({ length: 50_000 }, (_, i) => i),
];

/** The files of a run directory, relative to it. */
const files = [
  'config.json',
  'manifest.json',
  'metrics.jsonl',
  'evals.jsonl',
  'checkpoints/latest',
  'checkpoints/iter-000003/trainer.json',
  'checkpoints/iter-000003/phase-state.json',
];

type Json = Record<string, unknown>;

/** A random path into a JSON value, at most three keys deep. */
function randomPath(rng: Rng, value: unknown): string[] {
  const path: string[] = [];
  let node = value;
  while (typeof node === 'object' && node !== null && path.length < 3 && rng.int(3) > 0) {
    const keys = Object.keys(node);
    if (keys.length === 0) break;
    const key = rng.pick(keys);
    path.push(key);
    node = (node as Json)[key];
  }
  return path;
}

/** Damages `file` of the run directory `dir`; returns what was done. */
function damage(rng: Rng, dir: string, file: string): string {
  const path = join(dir, file);
  const bytes = readFileSync(path);
  const kind = rng.int(6);
  if (kind === 0) {
    const at = rng.int(bytes.length);
    writeFileSync(path, bytes.subarray(0, at));
    return `${file} cut at ${at}`;
  }
  if (kind === 1) {
    const copy = Buffer.from(bytes);
    for (let n = rng.intBetween(1, 4); n > 0; n--) {
      const at = rng.int(copy.length);
      copy[at] = copy[at]! ^ (1 + rng.int(255));
    }
    writeFileSync(path, copy);
    return `bytes of ${file} flipped`;
  }
  if (kind === 2) {
    rmSync(path);
    if (rng.int(2) === 0) mkdirSync(path);
    return `${file} deleted`;
  }
  if (kind >= 3 && file === 'checkpoints/latest') {
    const name = rng.pick([
      '../../etc',
      'iter-000002',
      '',
      '\u0000\u0001',
      'iter-000003/../..',
      'x'.repeat(5000),
    ]);
    writeFileSync(path, name);
    return `latest = ${JSON.stringify(name.slice(0, 20))}`;
  }
  const text = bytes.toString('utf8');
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const json = JSON.parse(file.endsWith('.jsonl') ? lines[0]! : text) as Json;
  const target = randomPath(rng, json);
  const value = rng.pick(strangeValues);
  if (target.length === 0) {
    writeFileSync(path, JSON.stringify(value));
    return `${file} = ${JSON.stringify(value).slice(0, 30)}`;
  }
  let node = json;
  for (const key of target.slice(0, -1)) node = node[key] as Json;
  node[target.at(-1)!] = value;
  writeFileSync(path, JSON.stringify(json));
  return `${file}: ${target.join('.')} = ${JSON.stringify(value).slice(0, 30)}`;
}

describe('run directory fuzz', () => {
  it('refuses a damaged run directory with a clean PilotRLError, or reads what was saved (300 cases)', () => {
    const rng = createRng('run-dir-fuzz');
    const saved = readRun(original);
    const dir = join(root, 'damaged');
    cpSync(original, dir, { recursive: true });
    const pristine = new Map(files.map((file) => [file, readFileSync(join(dir, file))]));
    const failures: string[] = [];
    let refused = 0;
    for (let i = 0; i < 300; i++) {
      const file = rng.pick(files);
      const what = damage(rng, dir, file);
      try {
        const read = readRun(dir);
        // A checkpoint is what was saved. Without `latest` there is none, and a resume says it
        // starts over; the config, manifest and logs are read through their schemas.
        const checkpoint = JSON.stringify([read.checkpoint, read.state]);
        if (read.checkpoint !== undefined && checkpoint !== JSON.stringify([saved.checkpoint, saved.state])) {
          failures.push(`case ${i} (${what}): read a checkpoint other than the one saved`);
        }
      } catch (error) {
        refused++;
        const message = (error as Error).message;
        if (!PilotRLError.isInstance(error)) failures.push(`case ${i} (${what}): ${(error as Error).stack}`);
        else if (message.includes('    at ') || message.length >= 2000 || CONTROL.test(message))
          failures.push(`case ${i} (${what}): message ${JSON.stringify(message.slice(0, 300))}`);
        // Only a config lists several problems, one per line.
        else if (message.includes('\n') && !message.startsWith('Invalid curriculum'))
          failures.push(`case ${i} (${what}): message of several lines ${JSON.stringify(message)}`);
      }
      rmSync(join(dir, file), { recursive: true, force: true });
      writeFileSync(join(dir, file), pristine.get(file)!);
    }
    expect(failures.slice(0, 5)).toEqual([]);
    expect(refused).toBeGreaterThan(150);
  });
});
