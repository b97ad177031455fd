// Fuzzing of curriculum configs: the `quick` preset with random leaves replaced by wrong types,
// huge or negative numbers, NaN-like strings, deep nesting, unknown keys and empty objects, and
// config files of random bytes, truncated YAML or JSON. Each is accepted, or refused with a
// ConfigError whose message is bounded, quotes no control characters and carries no stack frame;
// `pilotrl train --config <file>` refuses a bad file with exit code 1 and one `pilotrl train:` error.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRng, type Rng } from '@pilotrl/core';
import { refusalProblem } from '@pilotrl/env-testkit/test';
import { describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import { runCli } from '../cli';
import { capturedIo } from '../tiny-corridor.testing';
import { parseConfig, readConfigFile } from './curriculum-config';
import { presets } from './presets';

const quick = presets.quick!;
const dir = mkdtempSync(join(tmpdir(), 'pilotrl-config-fuzz-'));
const MAX_MESSAGE = 2000;

const deep = (depth: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { a: value };
  return value;
};

/**
 * Values of the wrong type or out of range, as a config file could hold them; `size` bounds the
 * nesting and the length of strings and lists.
 */
const strangeValues = (rng: Rng, size: number): unknown[] => [
  'x',
  '',
  true,
  null,
  [],
  {},
  0,
  -1,
  -1e308,
  1e308,
  2 ** 53 + 1,
  0.5,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  'NaN',
  'Infinity',
  '1e999',
  '-0',
  '\u0000\u0007\u001b[2J\u009b',
  'é😀\u202e',
  'k'.repeat(25 * size),
  Array.from({ length: 5 * size }, (_, i) => i),
  deep(rng.intBetween(size / 40, size)),
  { outcome: 1, [`\u0001${'z'.repeat(3000)}`]: 2 },
];

const strangeKeys = [
  'extra',
  '__proto__',
  'constructor',
  '',
  '\u0000\u001b[31m',
  'y'.repeat(10_000),
  'ünïcode',
];

type Path = (string | number)[];

/** Every path of `value` that leads to something (leaves and objects), down to the preset's depth. */
function pathsOf(value: unknown, prefix: Path = []): Path[] {
  if (typeof value !== 'object' || value === null || prefix.length === 5) return [prefix];
  const entries: [string | number, unknown][] = Array.isArray(value)
    ? value.map((item, i) => [i, item])
    : Object.entries(value);
  return [prefix, ...entries.flatMap(([key, child]) => pathsOf(child, [...prefix, key]))];
}

function setAt(root: Record<string, unknown>, path: Path, value: unknown): void {
  let node = root as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path.at(-1)!] = value;
}

function getAt(root: unknown, path: Path): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], root);
}

/** The quick preset with one to three random mutations, and what they were. */
function mutatedConfig(rng: Rng, size = 2000): { config: Record<string, unknown>; what: string[] } {
  const config = structuredClone(quick) as Record<string, unknown>;
  const what: string[] = [];
  for (let n = rng.intBetween(1, 3); n > 0; n--) {
    const paths = pathsOf(config).filter((path) => path.length > 0);
    const path = rng.pick(paths);
    const at = path.join('.');
    const kind = rng.int(4);
    const target = getAt(config, path);
    if (kind === 0 || typeof target !== 'object' || target === null) {
      const value = rng.pick(strangeValues(rng, size));
      setAt(config, path, value);
      what.push(`${at} = ${show(value)}`);
    } else if (kind === 1) {
      const key = rng.pick(strangeKeys);
      Object.defineProperty(target, key, {
        value: rng.pick(strangeValues(rng, size)),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      what.push(`${at} gets key ${show(key)}`);
    } else if (kind === 2) {
      setAt(config, path, Array.isArray(target) ? [] : {});
      what.push(`${at} emptied`);
    } else {
      const parent = path.length === 1 ? config : (getAt(config, path.slice(0, -1)) as object);
      if (Array.isArray(parent)) parent.splice(path.at(-1) as number, 1);
      else delete (parent as Record<string, unknown>)[path.at(-1) as string];
      what.push(`${at} deleted`);
    }
  }
  return { config, what };
}

function show(value: unknown): string {
  if (typeof value === 'number') return String(value);
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}... (${text.length} chars)` : text;
}

const randomBytes = (rng: Rng, length: number) => Buffer.from(Array.from({ length }, () => rng.int(256)));

describe('config fuzz', () => {
  it('accepts a mutated quick preset or refuses it with a clean ConfigError (400 cases)', () => {
    const rng = createRng('config-fuzz/parse');
    const failures: string[] = [];
    let accepted = 0;
    for (let i = 0; i < 400; i++) {
      const { config, what } = mutatedConfig(rng);
      let parsed: ReturnType<typeof parseConfig> | undefined;
      const problem = refusalProblem(
        () => {
          parsed = parseConfig(config, 'fuzz.yaml');
        },
        { maxLength: MAX_MESSAGE },
      );
      if (problem !== undefined) failures.push(`case ${i} (${what.join('; ')}): ${problem}`);
      if (parsed === undefined) continue;
      accepted++;
      // What is accepted survives its run directory: config.json reads back as the same config.
      let reread: unknown;
      try {
        reread = parseConfig(JSON.parse(JSON.stringify(parsed)));
      } catch (error) {
        reread = error;
      }
      if (JSON.stringify(reread) !== JSON.stringify(parsed))
        failures.push(`case ${i} (${what.join('; ')}): accepted, but its config.json reads back otherwise`);
    }
    expect(failures.slice(0, 5)).toEqual([]);
    // The mutations are mostly fatal, but not all: the fuzzing covers both outcomes.
    expect(accepted).toBeGreaterThan(0);
    expect(accepted).toBeLessThan(400);
  });

  /** Config files: random bytes, truncated or byte-flipped YAML and JSON, deep nesting, mutated presets. */
  function makeConfigFiles(count: number): { name: string; text: Buffer | string }[] {
    const rng = createRng('config-fuzz/files');
    const yaml = toYaml(quick);
    const json = JSON.stringify(quick, null, 2);
    const files: { name: string; text: Buffer | string }[] = [];
    for (let i = 0; i < count; i++) {
      const ext = rng.pick(['.yaml', '.yml', '.json', '.YAML']);
      const source = ext === '.json' ? json : yaml;
      const kind = rng.int(6);
      let text: Buffer | string;
      if (kind === 0) text = randomBytes(rng, rng.int(2048));
      else if (kind === 1) text = source.slice(0, rng.int(source.length));
      else if (kind === 2) {
        const bytes = Buffer.from(source);
        for (let n = rng.intBetween(1, 8); n > 0; n--) bytes[rng.int(bytes.length)] = rng.int(256);
        text = bytes;
      } else if (kind === 3) {
        const depth = rng.intBetween(20, 3000);
        text = rng.pick([
          `${'['.repeat(depth)}${']'.repeat(depth)}`,
          `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`,
          `${'- '.repeat(Math.min(depth, 2000))}x`,
          `${'['.repeat(depth)}`,
        ]);
      } else if (kind === 4) {
        // Small enough for the writers, which recurse; deeper nesting is written directly above.
        const { config } = mutatedConfig(rng, 200);
        text = ext === '.json' ? JSON.stringify(config) : toYaml(config);
      } else {
        text = Buffer.concat([Buffer.from(source.slice(0, rng.int(source.length))), randomBytes(rng, 64)]);
      }
      files.push({ name: `case-${i}${ext}`, text });
    }
    return files;
  }
  let files: { name: string; text: Buffer | string }[] | undefined;
  const configFiles = () => {
    files ??= makeConfigFiles(200);
    return files;
  };

  it('loads a damaged config file or refuses it with a clean ConfigError (200 files)', () => {
    const failures: string[] = [];
    for (const { name, text } of configFiles()) {
      const path = join(dir, name);
      writeFileSync(path, text);
      const problem = refusalProblem(() => parseConfig(readConfigFile(path), path), {
        maxLength: MAX_MESSAGE,
      });
      if (problem !== undefined) failures.push(`${name}: ${problem}`);
    }
    expect(failures.slice(0, 5)).toEqual([]);
  });

  it('pilotrl train --config refuses a bad file with exit code 1 and one error line (40 files)', async () => {
    const failures: string[] = [];
    let refused = 0;
    for (const { name, text } of configFiles()) {
      if (refused === 40) break;
      const path = join(dir, `cli-${name}`);
      writeFileSync(path, text);
      // Only files that must be refused: an accepted one would start training.
      let accepted = true;
      try {
        parseConfig(readConfigFile(path), path);
      } catch {
        accepted = false;
      }
      if (accepted) continue;
      refused++;
      const io = capturedIo();
      const code = await runCli(['train', '--config', path], io);
      const err = io.err();
      if (code !== 1) failures.push(`${name}: exit code ${code}`);
      if (!err.startsWith(`pilotrl train: `))
        failures.push(`${name}: stderr ${JSON.stringify(err.slice(0, 200))}`);
      if (err.includes('    at ')) failures.push(`${name}: stderr has a stack frame`);
      if (io.out() !== '') failures.push(`${name}: printed ${JSON.stringify(io.out().slice(0, 200))}`);
    }
    expect(refused).toBe(40);
    expect(failures.slice(0, 5)).toEqual([]);
  });
});
