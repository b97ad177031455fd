// The env package that `pnpm new:env` creates passes the conformance checks as generated. It is
// scaffolded inside this package so that its imports resolve through this package's node_modules.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PilotrlPlugin, TaskSource, TextEnv } from '@pilotrl/core';
import { afterAll, describe, expect, it } from 'vitest';
import { type EnvCheckOptions, runEnvChecks } from './index';

const packageRoot = resolve(import.meta.dirname, '..');
const newEnvScript = resolve(packageRoot, '../../tooling/new-env.mjs');
const scratch = mkdtempSync(join(packageRoot, '.scaffold-tmp-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const listFiles = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .sort();

describe('pnpm new:env', () => {
  it('creates an env package that passes checkEnv on day one', async () => {
    const out = join(scratch, 'env-word-ladder');
    execFileSync(process.execPath, [newEnvScript, 'word-ladder', '--out', out], { stdio: 'pipe' });

    expect(listFiles(out)).toEqual([
      'LICENSE',
      'README.md',
      'curriculum.yaml',
      'package.json',
      'src/index.ts',
      'src/readme.test.ts',
      'src/word-ladder.test.ts',
      'tsconfig.json',
      'tsup.config.ts',
    ]);
    const pkg = JSON.parse(readFileSync(join(out, 'package.json'), 'utf8'));
    expect(pkg).toMatchObject({ name: '@pilotrl/env-word-ladder', sideEffects: false, type: 'module' });
    for (const file of listFiles(out))
      expect(readFileSync(join(out, file), 'utf8')).not.toMatch(/__[A-Z]+__/);
    expect(readFileSync(join(out, 'src/word-ladder.test.ts'), 'utf8')).toContain('checkEnv(');

    const generated = (await import(pathToFileURL(join(out, 'src/index.ts')).href)) as {
      createWordLadderEnv: (config?: { maxSteps?: number }) => TextEnv;
      wordLadderTasks: TaskSource;
      WORD_LADDER_ENV_ID: string;
      plugin: PilotrlPlugin;
    };
    expect(generated.WORD_LADDER_ENV_ID).toBe('word-ladder');
    expect(generated.plugin).toMatchObject({
      name: '@pilotrl/env-word-ladder',
      envs: [{ id: 'word-ladder' }],
    });
    const options: EnvCheckOptions = {
      resets: [{ seed: 0 }, { seed: 1 }, { seed: 2, taskId: 'valid_unseen-2' }],
      stepLimit: { maxSteps: 4, create: () => generated.createWordLadderEnv({ maxSteps: 4 }) },
      taskSource: generated.wordLadderTasks,
    };
    const results = await runEnvChecks(() => generated.createWordLadderEnv(), options);
    expect(results.filter((r) => !r.passed)).toEqual([]);
    expect(results).toHaveLength(9);
  });

  it('refuses names that are not kebab-case, carry the env- prefix, or exist', () => {
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [newEnvScript, ...args], { encoding: 'utf8' });
    expect(run('Word_Ladder').stderr).toMatch(/"Word_Ladder" is not kebab-case/);
    expect(run('env-maze').stderr).toMatch(/leave out the "env-" prefix/);
    expect(run('testkit').stderr).toMatch(/packages\/env-testkit already exists/);
    expect(run('testkit').status).toBe(1);
    expect(run().stderr).toMatch(/give exactly one env name/);
  });
});
