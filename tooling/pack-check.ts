// `pnpm pack:check`: what a user gets from npm works. Packs every workspace package git knows
// (each tarball built by its `prepack`), checks what each tarball holds, installs them all into
// one empty project outside the workspace, and there typechecks (strict, noUncheckedIndexedAccess,
// NodeNext, without skipLibCheck) under TypeScript 5.9 and 7 and runs each README's first example
// against the published files, not the sources. `--keep` leaves the scratch folders for a look
// (their tarballs are what a user installs until the packages are on npm).
import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { firstExample } from './readme-snippets';

interface PackageJson {
  name: string;
  version: string;
  private?: boolean;
  license?: string;
  files?: string[];
  bin?: Record<string, string>;
  exports?: Record<string, string | Record<string, string>>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  scripts?: Record<string, string>;
}

interface Packed {
  dir: string;
  pkg: PackageJson;
  tarball: string;
}

/** Packages whose published files carry third-party data, and the notice that must ship with them. */
const thirdPartyNotices: Record<string, string> = {
  '@pilotrl/env-alfworld': 'THIRD_PARTY_NOTICES.md',
  '@pilotrl/env-babyai': 'THIRD_PARTY_NOTICES.md',
  '@pilotrl/env-maze': 'THIRD_PARTY_NOTICES.md',
  '@pilotrl/env-textcraft': 'THIRD_PARTY_NOTICES.md',
  '@pilotrl/env-wordle': 'THIRD_PARTY_NOTICES.md',
};

const root = resolve(import.meta.dirname, '..');
const keep = process.argv.includes('--keep');
const problems: string[] = [];

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} (in ${cwd}) exited with ${result.status ?? result.signal}:\n${result.stdout}${result.stderr}`,
    );
  }
  return result.stdout;
}

function step(title: string) {
  console.log(`\n== ${title}`);
}

/**
 * Workspace packages on disk that git does not know: a clone lacks them, so they are not packed,
 * and a package that depends on one could only find it on npm (where npm answers a bare 404).
 */
function untrackedPackages(): string[] {
  const listed = execFileSync(
    'git',
    ['ls-files', '--others', '--exclude-standard', 'packages/*/package.json', 'apps/*/package.json'],
    { cwd: root, encoding: 'utf8' },
  );
  return listed
    .split('\n')
    .filter((line) => line.split('/').length === 3)
    .map((file) => file.replace(/\/package\.json$/, ''));
}

/** Workspace packages that git knows (as a clone has them) and that are not private. */
function publishablePackages(): { dir: string; pkg: PackageJson }[] {
  const listed = execFileSync('git', ['ls-files', 'packages/*/package.json', 'apps/*/package.json'], {
    cwd: root,
    encoding: 'utf8',
  });
  return listed
    .split('\n')
    .filter((line) => line.split('/').length === 3)
    .map((file) => ({
      dir: join(root, file, '..'),
      pkg: JSON.parse(readFileSync(join(root, file), 'utf8')) as PackageJson,
    }))
    .filter(({ pkg }) => !pkg.private);
}

function listTarball(tarball: string): string[] {
  return execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    .split('\n')
    .filter(Boolean)
    .map((path) => path.replace(/^package\//, ''));
}

function readFromTarball(tarball: string, path: string): string {
  // A bundle with data inside (env-babyai's levels) is larger than execFileSync's default 1 MiB buffer.
  return execFileSync('tar', ['-xzOf', tarball, `package/${path}`], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
}

/** What the published package.json and file list must look like. */
function checkTarball({ pkg, tarball }: Packed, rootLicense: string) {
  const files = new Set(listTarball(tarball));
  const published = JSON.parse(readFromTarball(tarball, 'package.json')) as PackageJson;
  const where = `${pkg.name} (${relative(root, tarball)})`;
  if (JSON.stringify(published.exports).includes('@pilotrl/source')) {
    problems.push(`${where}: its exports still name @pilotrl/source (publishConfig.exports missing?)`);
  }
  const ranges = JSON.stringify([published.dependencies, published.peerDependencies]);
  if (ranges.includes('workspace:')) problems.push(`${where}: package.json still has a workspace: range`);
  if (published.scripts?.postinstall) problems.push(`${where}: has a postinstall script`);
  if (!files.has('LICENSE')) problems.push(`${where}: no LICENSE`);
  else if (readFromTarball(tarball, 'LICENSE') !== rootLicense)
    problems.push(`${where}: LICENSE differs from the root's`);
  if (!files.has('README.md')) problems.push(`${where}: no README.md`);
  const notice = thirdPartyNotices[pkg.name];
  if (notice !== undefined && !files.has(notice)) problems.push(`${where}: ${notice} is missing`);
  const targets = [
    ...Object.values(published.exports ?? {}).flatMap((target) =>
      typeof target === 'string' ? [target] : Object.values(target),
    ),
    ...Object.values(published.bin ?? {}),
  ];
  if (targets.length === 0) problems.push(`${where}: exports nothing`);
  for (const target of targets) {
    if (!files.has(target.replace(/^\.\//, ''))) problems.push(`${where}: ${target} is not in the tarball`);
  }
  if (notice !== undefined) {
    for (const file of [...files].filter((path) => /^dist\/.*\.js$/.test(path))) {
      if (!readFromTarball(tarball, file).includes(notice)) {
        problems.push(`${where}: ${file} does not point to ${notice}`);
      }
    }
  }
}

const untracked = untrackedPackages();
if (untracked.length > 0) {
  const lines = untracked.map((dir) => `- ${dir} is not tracked by git: git add it, or it is not packed`);
  console.error(`pack check failed before packing:\n${lines.join('\n')}`);
  process.exit(1);
}

const scratch = mkdtempSync(join(tmpdir(), 'pilotrl-pack-check-'));
if (!relative(root, scratch).startsWith('..')) throw new Error(`${scratch} is inside the workspace`);
const tarballDir = join(scratch, 'tarballs');
const project = join(scratch, 'project');
mkdirSync(tarballDir);
mkdirSync(project);

try {
  const packages = publishablePackages();
  const rootLicense = readFileSync(join(root, 'LICENSE'), 'utf8');

  step(`pack ${packages.length} packages (each builds in its prepack)`);
  const packed: Packed[] = packages.map(({ dir, pkg }) => {
    const before = new Set(readdirSync(tarballDir));
    run('pnpm', ['pack', '--pack-destination', tarballDir], dir);
    const [tarball] = readdirSync(tarballDir).filter((file) => !before.has(file));
    if (tarball === undefined) throw new Error(`pnpm pack wrote no tarball for ${pkg.name}`);
    console.log(`${pkg.name}: ${tarball}`);
    return { dir, pkg, tarball: join(tarballDir, tarball) };
  });

  step('check the tarballs');
  for (const entry of packed) checkTarball(entry, rootLicense);

  step(`install the tarballs into an empty project: ${project}`);
  writeFileSync(
    join(project, 'package.json'),
    `${JSON.stringify({ name: 'pack-check', private: true, type: 'module' }, null, 2)}\n`,
  );
  // The repository's TypeScript, and the latest major a plain `npm install typescript` gives (its
  // own command, under another name, since both packages call theirs `tsc`).
  const compilers = [
    { name: 'TypeScript 5.9', tsc: 'node_modules/typescript/bin/tsc' },
    { name: 'TypeScript 7', tsc: 'node_modules/typescript7/bin/tsc' },
  ];
  const devTools = [
    'typescript@5.9.3',
    'typescript7@npm:typescript@^7.0.2',
    '@types/node@^20.19.0',
    'tsx@^4.20.0',
    // Not the repository's 3.2.7: vitest 3.2 declares Chai's `containSubset` again, as a property
    // where @types/chai 5.2.3 has a method, which TypeScript 7 reports in any project with both. 4
    // is the newest vitest that runs on Node 20, and the testkit's peer range (>=3.2.0) admits it.
    'vitest@4.1.12',
  ];
  // Outside the workspace, so npm neither sees pnpm's lockfile nor links workspace packages.
  try {
    run(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        ...packed.map((p) => p.tarball),
        ...devTools,
      ],
      project,
    );
  } catch (error) {
    // A dependency on a workspace package that was not packed sends npm to the registry.
    const missing = /404 Not Found - GET \S+\/(@pilotrl%2f[\w-]+|pilotrl)\b/i.exec(String(error))?.[1];
    if (missing === undefined) throw error;
    const name = decodeURIComponent(missing);
    throw new Error(
      `${name} is a dependency of a packed package but was not packed itself (is its folder tracked by git, and its package.json not private?), so npm looked for it on the registry:\n${String(error)}`,
    );
  }
  writeFileSync(
    join(project, 'tsconfig.json'),
    `${JSON.stringify(
      {
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noUncheckedIndexedAccess: true,
          types: ['node'],
          noEmit: true,
          skipLibCheck: false,
        },
        include: ['examples'],
      },
      null,
      2,
    )}\n`,
  );

  step("write each README's first example");
  const examples = join(project, 'examples');
  mkdirSync(examples);
  const written = packed.flatMap(({ dir, pkg }) => {
    const example = firstExample(readFileSync(join(dir, 'README.md'), 'utf8'));
    if (example === undefined) {
      problems.push(`${pkg.name}: README.md has no \`\`\`ts example`);
      return [];
    }
    const base = pkg.name.replace(/^@pilotrl\//, '');
    const file = join(examples, example.mode === 'vitest' ? `${base}.test.ts` : `${base}.ts`);
    writeFileSync(file, `${example.code}export {};\n`);
    console.log(`${pkg.name}: README.md:${example.line} (${example.mode}) -> ${relative(project, file)}`);
    return [{ pkg, example, file }];
  });

  // Every declaration a user's program loads is checked too (no skipLibCheck). An error inside a
  // third-party package's declarations means one of ours imports it: a user would then need
  // skipLibCheck, so it fails the check as well (tfjs-core's name an undeclared `Long`, and under
  // TypeScript 7 its `@webgpu/types` clash with lib.dom; policy-tfjs's declarations import neither).
  for (const { name, tsc } of compilers) {
    step(
      `typecheck them against the installed packages (${name}, NodeNext, strict, noUncheckedIndexedAccess)`,
    );
    const checked = spawnSync(process.execPath, [join(project, tsc), '-p', '.', '--pretty', 'false'], {
      cwd: project,
      encoding: 'utf8',
    });
    const version = spawnSync(process.execPath, [join(project, tsc), '--version'], { encoding: 'utf8' });
    console.log(`${name}: ${version.stdout.trim()}`);
    const output = `${checked.stdout}${checked.stderr}`;
    const errors = output.split('\n').filter((line) => /error TS\d+/.test(line));
    const theirs = (line: string) =>
      line.startsWith('node_modules/') && !/^node_modules\/(@pilotrl\/|pilotrl\/)/.test(line);
    const ours = errors.filter((line) => !theirs(line));
    if (ours.length > 0)
      problems.push(`the README examples do not typecheck under ${name}:\n${ours.join('\n')}`);
    if (errors.some(theirs)) {
      problems.push(
        `under ${name}, declarations that our packages load fail without skipLibCheck:\n${errors.filter(theirs).join('\n')}`,
      );
    }
    if (checked.status !== 0 && errors.length === 0) problems.push(`${name} failed:\n${output}`);
    if (checked.status === 0) console.log(`${name}: no errors`);
  }

  step('run them');
  // No native TensorFlow here: the policy runs on the backend a user gets without setup (wasm).
  const env = { ...process.env, CI: '' };
  for (const { pkg, example, file } of written) {
    if (example.mode === 'fragment' || example.mode === 'no-run') {
      console.log(`${pkg.name}: not run (${example.mode})`);
      continue;
    }
    const [command, args] =
      example.mode === 'vitest'
        ? [join(project, 'node_modules/.bin/vitest'), ['run', relative(project, file)]]
        : [process.execPath, ['--import', 'tsx', file]];
    const started = Date.now();
    const result = spawnSync(command, args, { cwd: project, env, encoding: 'utf8', timeout: 300_000 });
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    if (result.status === 0) console.log(`${pkg.name}: ok (${seconds} s)`);
    else {
      problems.push(
        `${pkg.name}: README.md:${example.line} exited with ${result.status ?? result.signal}:\n${result.stdout}${result.stderr}`,
      );
      console.log(`${pkg.name}: FAILED (${seconds} s)`);
    }
  }

  // Each app's command line starts from the tarball.
  for (const { pkg } of packed) {
    for (const name of Object.keys(pkg.bin ?? {}).filter((bin) => bin === pkg.name)) {
      const result = spawnSync(join(project, 'node_modules/.bin', name), ['--help'], {
        cwd: project,
        encoding: 'utf8',
      });
      if (result.status !== 0)
        problems.push(`${name} --help exited with ${result.status}:\n${result.stderr}`);
      else console.log(`${name} --help: ok`);
    }
  }
} finally {
  if (keep) console.log(`\nkept ${scratch}`);
  else if (existsSync(scratch)) rmSync(scratch, { recursive: true, force: true });
}

if (problems.length > 0) {
  console.error(`\npack check failed:\n${problems.map((problem) => `- ${problem}`).join('\n')}`);
  process.exit(1);
}
console.log('\npack check passed');
