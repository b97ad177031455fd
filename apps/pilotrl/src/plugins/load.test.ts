import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli';
import { loadConfigFile } from '../config/curriculum-config';
import { readJsonl } from '../run/jsonl';
import { capturedIo, resumableCurriculumYaml, spawnPilotrl } from '../tiny-corridor.testing';
import { loadPlugin, resolvePlugin } from './load';
import { envProviders } from './registry';

/**
 * A plug-in module as a package published on its own would ship it (plain JavaScript, no imports):
 * a guess-the-number env with `id`, two splits and an oracle.
 */
const guessModule = (id: string, name = '@someone/env-guess') => `
const SPLITS = { train: 20, valid_unseen: 5 };
const secretOf = (taskId) => (Number(taskId.split('-')[1]) % 9) + 1;
function createEnv({ maxSteps = 10 } = {}) {
  let episode;
  const result = (observation, won) => {
    const over = won || episode.steps >= maxSteps;
    return {
      observation,
      admissibleActions: over ? [] : ['1', '2', '3', '4', '5', '6', '7', '8', '9'].map((n) => 'guess ' + n),
      reward: won ? 1 : 0,
      terminated: won,
      truncated: !won && episode.steps >= maxSteps,
      info: { won, valid: true, task: 'Guess the number from 1 to 9.' },
    };
  };
  return {
    envId: ${JSON.stringify(id)},
    async reset({ taskId = 'train-0' }) {
      episode = { secret: secretOf(taskId), steps: 0 };
      return result('Guess the number from 1 to 9.', false);
    },
    async step(action) {
      episode.steps++;
      const guess = Number(action.replace('guess ', ''));
      if (guess === episode.secret) return result('Right!', true);
      return result(guess < episode.secret ? 'Higher.' : 'Lower.', false);
    },
    async close() {},
  };
}
const tasks = {
  envId: ${JSON.stringify(id)},
  splits: () => Object.keys(SPLITS),
  count: (split) => SPLITS[split],
  async tasks(split, { offset = 0, limit = SPLITS[split] } = {}) {
    const refs = [];
    for (let i = offset; i < Math.min(SPLITS[split], offset + limit); i++)
      refs.push({ taskId: split + '-' + i, split, seed: i, description: 'Guess the number.' });
    return refs;
  },
  async oracle(task) {
    const secret = secretOf(task.taskId);
    return { actions: ['guess ' + secret], plan: ['Guess ' + secret + '.'] };
  },
};
export const plugin = {
  name: ${JSON.stringify(name)},
  envs: [{ id: ${JSON.stringify(id)}, create: () => ({ envId: ${JSON.stringify(id)}, createEnv, tasks }) }],
};
`;

/** A project folder with `@someone/env-guess` installed as npm would install it. */
function projectWithPackage(id: string): string {
  const project = mkdtempSync(join(tmpdir(), 'pilotrl-plugin-'));
  const packageDir = join(project, 'node_modules', '@someone', 'env-guess');
  mkdirSync(join(packageDir, 'dist'), { recursive: true });
  writeFileSync(
    join(packageDir, 'package.json'),
    JSON.stringify({
      name: '@someone/env-guess',
      type: 'module',
      exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js' } },
    }),
  );
  writeFileSync(join(packageDir, 'dist', 'index.js'), guessModule(id));
  return project;
}

/** Trains `dir`/`file` with `pilotrl train` into `dir`/run, expecting it to succeed; returns the run directory. */
async function trainIn(dir: string, file: string): Promise<string> {
  const runDir = join(dir, 'run');
  const io = capturedIo();
  const code = await runCli(['train', '--config', join(dir, file), '--out', runDir, '--no-report'], io);
  expect(code, io.err()).toBe(0);
  return runDir;
}

describe('plug-ins loaded by name', () => {
  it('finds an installed package from a folder below its project, through its exports', () => {
    const project = projectWithPackage('guess-a');
    const nested = join(project, 'configs', 'deep');
    mkdirSync(nested, { recursive: true });
    expect(resolvePlugin('@someone/env-guess', nested, nested)).toBe(
      join(project, 'node_modules', '@someone', 'env-guess', 'dist', 'index.js'),
    );
  });

  it('says what to do when a plug-in cannot be found or read', () => {
    const project = projectWithPackage('guess-b');
    expect(() => resolvePlugin('@someone/env-missing', project, project)).toThrow(
      /^plug-in @someone\/env-missing is not installed: no node_modules\/@someone\/env-missing in .* install it there \(npm install @someone\/env-missing\)/,
    );
    expect(() => resolvePlugin('./nowhere.js', project, project)).toThrow(
      /^plug-in \.\/nowhere\.js: no such file /,
    );
    expect(() => resolvePlugin('not a name!', project, project)).toThrow(
      'is neither a package name (e.g. @someone/env-guess) nor a path',
    );
    expect(() => resolvePlugin('@someone/env-guess/extra', project, project)).toThrow(
      /has no "\.\/extra" export for import/,
    );
    const unbuilt = projectWithPackage('guess-c');
    writeFileSync(
      join(unbuilt, 'node_modules', '@someone', 'env-guess', 'package.json'),
      JSON.stringify({ name: '@someone/env-guess', exports: { '.': { import: './dist/missing.js' } } }),
    );
    expect(() => resolvePlugin('@someone/env-guess', unbuilt, unbuilt)).toThrow(
      /is missing: is the package built\?/,
    );
  });

  it('registers the envs of a module that exports a plug-in, once, and refuses one taking a known id', async () => {
    const project = projectWithPackage('guess-d');
    const plugin = await loadPlugin('@someone/env-guess', project);
    expect(plugin.envs.map((env) => env.id)).toEqual(['guess-d']);
    const provider = envProviders.get('guess-d')({});
    expect(await provider.tasks.tasks('valid_unseen')).toHaveLength(5);
    await loadPlugin('@someone/env-guess', project);

    const dir = mkdtempSync(join(tmpdir(), 'pilotrl-plugin-'));
    writeFileSync(join(dir, 'maze.mjs'), guessModule('maze', '@someone/env-maze-too'));
    await expect(loadPlugin('./maze.mjs', dir)).rejects.toThrow(
      'plug-in "@someone/env-maze-too" offers env "maze", which "@pilotrl/env-maze" registered already',
    );
    writeFileSync(join(dir, 'none.mjs'), 'export const envs = [];\n');
    await expect(loadPlugin('./none.mjs', dir)).rejects.toThrow(
      /exports no "plugin"; a plug-in module exports one: export const plugin = definePlugin/,
    );
    writeFileSync(join(dir, 'bad.mjs'), "export const plugin = { name: 'bad', envs: [{ id: 'x' }] };\n");
    await expect(loadPlugin('./bad.mjs', dir)).rejects.toThrow('plugin.envs.0.create must be a function');
    writeFileSync(
      join(dir, 'off.mjs'),
      guessModule('guess-off', '@someone/env-off').replace('valid: true, ', ''),
    );
    await expect(loadPlugin('./off.mjs', dir)).rejects.toThrow(
      'env "guess-off": reset of task "train-0" returned a result outside the TextEnv contract (info.valid:',
    );
    expect(envProviders.has('guess-off')).toBe(false);
    writeFileSync(join(dir, 'broken.mjs'), 'export const plugin = ;\n');
    await expect(loadPlugin('./broken.mjs', dir)).rejects.toThrow(
      /^plug-in \.\/broken\.mjs: loading .* failed: /,
    );
  });

  it('trains a curriculum on a plug-in env its config names, and a new process reports the run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pilotrl-plugin-'));
    writeFileSync(join(dir, 'guess.mjs'), guessModule('guess-e', '@someone/env-guess-e'));
    const yaml = resumableCurriculumYaml({ name: 'guess', evalEvery: 10, checkpointEvery: 10 })
      .replace(
        'env: { id: testkit/corridor, maxSteps: 6 }',
        'plugins: [./guess.mjs]\nenv: { id: guess-e, maxSteps: 4 }',
      )
      .replace('demonstrations: 10', 'demonstrations: 4');
    writeFileSync(join(dir, 'run.yaml'), yaml);
    const config = await loadConfigFile(join(dir, 'run.yaml'));
    expect(config.plugins).toEqual([join(dir, 'guess.mjs')]);
    expect(config.env).toMatchObject({ id: 'guess-e', maxSteps: 4 });

    const runDir = await trainIn(dir, 'run.yaml');
    // A fresh process knows no plug-in: it loads the one the run's config names.
    const report = await spawnPilotrl(['report', runDir]);
    expect(report.stderr).toBe('');
    expect(report.code).toBe(0);

    writeFileSync(join(dir, 'other.yaml'), 'env: { id: guess-unloaded }\n');
    await expect(loadConfigFile(join(dir, 'other.yaml'))).rejects.toThrow(
      /env\.id: unknown env "guess-unloaded"; known: .*maze.*\. An env package published on its own: name it with --plugin <package> or under plugins: in the config\. A new env in this repo: pnpm new:env <name> creates and registers one/,
    );
  }, 120_000);

  it('pilotrl --plugin plays an env from a plug-in; an unknown env says both ways to add one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pilotrl-plugin-'));
    writeFileSync(join(dir, 'guess.mjs'), guessModule('guess-f', '@someone/env-guess-f'));
    const io = capturedIo(['guess 5', 'quit']);
    const code = await runCli(
      ['--plugin', join(dir, 'guess.mjs'), 'play', '--env', 'guess-f', '--split', 'train'],
      io,
    );
    expect(io.err()).toBe('');
    expect(code).toBe(0);
    expect(io.out()).toContain('Guess the number from 1 to 9.');
    expect(io.out()).toMatch(/guess 5\n\n(Higher|Lower|Right!)/);

    const unknown = capturedIo();
    expect(await runCli(['play', '--env', 'guess-nowhere'], unknown)).toBe(1);
    expect(unknown.err()).toMatch(
      /^pilotrl play: Unknown environment "guess-nowhere"\. Known: .*\. An env package published on its own: name it with --plugin <package> .* pnpm new:env <name> creates and registers one\n$/,
    );
  });

  it('trains a stage with an estimator and a reward a plug-in offers, checking options and requirements from their descriptors', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pilotrl-plugin-'));
    const zod = pathToFileURL(createRequire(import.meta.url).resolve('zod')).href;
    writeFileSync(
      join(dir, 'estimator.mjs'),
      `import { appendFileSync } from 'node:fs';
import { z } from ${JSON.stringify(zod)};
export const plugin = {
  name: '@someone/estimator-constant',
  estimators: [{
    id: 'constant',
    optionsSchema: z.strictObject({ scale: z.number().positive() }),
    requires: ['groups'],
    create: ({ scale }) => ({
      name: 'constant',
      needsValues: false,
      estimate: ({ episodes }) => {
        appendFileSync(${JSON.stringify(join(dir, 'calls.log'))}, episodes.length + '\\n');
        return { advantages: episodes.map((e) => e.turns.flatMap((t) => t.generations).map((g) => g.lossMask.map((m) => m * scale))) };
      },
    }),
  }],
  rewards: [{
    id: 'turns_taken',
    requires: [],
    create: () => ({ name: 'turns_taken', compute: (episode) => ({ turns_taken: episode.turns.length }) }),
  }],
};
`,
    );
    const yaml = (options: string, groupSize = 2) =>
      resumableCurriculumYaml({ name: 'constant', evalEvery: 10, checkpointEvery: 10 })
        .replace('name: constant', 'name: constant\nplugins: [./estimator.mjs]')
        // Choices among admissible commands and a ReAct agent: every episode is well formed, so rewards vary within groups.
        .replace(
          'agent: { paradigm: adaplan,',
          'agent: { paradigm: react, actionSpace: choice, temperature: 2,',
        )
        .replace(
          /groupSize: 2, learningRate: 0.001, rewards: \{ outcome: 1, overlong: 1 \}/,
          `groupSize: ${groupSize}, learningRate: 0.001, estimator: constant, estimatorOptions: ${options}, rewards: { outcome: 1, repeated_action: 0.5, invalid_action: 0.5, format: 0.5, turns_taken: 0.01 }`,
        );
    writeFileSync(join(dir, 'bad.yaml'), yaml('{ scale: -1 }', 1));
    await expect(loadConfigFile(join(dir, 'bad.yaml'))).rejects.toThrow(
      /stages\.0\.estimatorOptions\.scale: .*\n {2}stages\.0\.groupSize: estimator "constant" compares samples in a group; needs groupSize >= 2/,
    );
    writeFileSync(join(dir, 'run.yaml'), yaml('{ scale: 0.5 }'));
    const runDir = await trainIn(dir, 'run.yaml');
    // Two joint iterations, each one estimate of the episodes its groups with reward variance kept.
    expect(readFileSync(join(dir, 'calls.log'), 'utf8')).toMatch(/^[1-9]\d*\n[1-9]\d*\n$/);
    // The plug-in's reward is a component of every training episode's reward.
    const sampled = readJsonl<{
      phase: string;
      episode: { turns: unknown[]; rewardComponents: Record<string, number> };
    }>(join(runDir, 'episodes.jsonl')).filter((record) => record.phase === 'joint');
    expect(sampled.length).toBeGreaterThan(0);
    for (const { episode } of sampled)
      expect(episode.rewardComponents.turns_taken).toBe(episode.turns.length);
  }, 120_000);

  it('trains and evaluates with a policy backend a plug-in offers, checking its keys and offers from its descriptor', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pilotrl-plugin-'));
    const zod = pathToFileURL(createRequire(import.meta.url).resolve('zod')).href;
    const tfjs = pathToFileURL(join(import.meta.dirname, '..', 'policies', 'tfjs-backend.ts')).href;
    const calls = join(dir, 'calls.log');
    // The tfjs backend under another id, with a key of its own, no entropies, and a log of its calls.
    writeFileSync(
      join(dir, 'backend.mjs'),
      `import { appendFileSync } from 'node:fs';
import { z } from ${JSON.stringify(zod)};
import { tfjsBackend } from ${JSON.stringify(tfjs)};
const called = (line) => appendFileSync(${JSON.stringify(calls)}, line + '\\n');
export const plugin = {
  name: '@someone/policy-logged',
  policyBackends: [{
    ...tfjsBackend,
    id: 'logged',
    title: 'logged',
    engine: 'the logged model',
    optionsSchema: tfjsBackend.optionsSchema.extend({ label: z.string().min(1) }),
    offers: { ...tfjsBackend.offers, entropy: false },
    create: (options, context) => { called('create ' + options.label); return tfjsBackend.create(options, context); },
    load: (options, dir, context) => { called('load ' + options.label); return tfjsBackend.load(options, dir, context); },
  }],
};
`,
    );
    const yaml = (policy: string, loss = '') =>
      resumableCurriculumYaml({ name: 'logged', evalEvery: 10, checkpointEvery: 10 })
        .replace(
          'policy: { size: tiny,',
          `plugins: [./backend.mjs]\npolicy: { kind: logged, ${policy} size: tiny,`,
        )
        .replace('rewards: { outcome: 1, overlong: 1 }', `rewards: { outcome: 1, overlong: 1 }${loss}`);
    writeFileSync(
      join(dir, 'bad.yaml'),
      yaml('label: mine, baseUrl: "http://127.0.0.1:8000",', ', loss: { entropyCoef: 0.01 }'),
    );
    const refused = loadConfigFile(join(dir, 'bad.yaml'));
    await expect(refused).rejects.toThrow(
      'policy.baseUrl: is a key of a Tinker policy; set policy.kind: tinker, or drop it',
    );
    await expect(refused).rejects.toThrow(
      'stages.0.loss.entropyCoef: the logged model returns no entropies, so it has no entropy bonus; set 0',
    );

    writeFileSync(join(dir, 'unlabelled.yaml'), yaml(''));
    await expect(loadConfigFile(join(dir, 'unlabelled.yaml'))).rejects.toThrow('policy.label: ');

    writeFileSync(join(dir, 'run.yaml'), yaml('label: mine,'));
    const runDir = await trainIn(dir, 'run.yaml');
    const io = capturedIo();
    expect(await runCli(['eval', '--checkpoint', runDir, '--episodes', '1'], io), io.err()).toBe(0);
    expect(io.out()).toMatch(/valid_unseen\s+adaplan\s+\d+\.\d%/);
    expect(readFileSync(calls, 'utf8')).toBe('create mine\nload mine\n');
  }, 120_000);
});
