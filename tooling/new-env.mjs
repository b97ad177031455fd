// `pnpm new:env <name>`: creates packages/env-<name>/ from tooling/templates/env, a working env
// package (env, task source, oracle, conformance test) that contributors then turn into their game.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';

const root = resolve(import.meta.dirname, '..');
const templateDir = join(import.meta.dirname, 'templates', 'env');

const usage = `Usage: pnpm new:env <name> [--out <dir>] [--no-install]

  <name>        kebab-case, e.g. "maze" or "word-ladder"; creates packages/env-<name>
  --out <dir>   create the package in <dir> instead (no install is run)
  --no-install  do not run "pnpm install" afterwards`;

function fail(message) {
  console.error(`new:env: ${message}\n\n${usage}`);
  process.exit(1);
}

/** Template placeholders and their values for `name` (kebab-case), created in `packageDir`. */
function placeholders(name, packageDir) {
  const words = name.split('-');
  const pascal = words.map((w) => w[0].toUpperCase() + w.slice(1)).join('');
  return {
    __NAME__: name,
    __PASCAL__: pascal,
    __CAMEL__: pascal[0].toLowerCase() + pascal.slice(1),
    __CONST__: words.map((w) => w.toUpperCase()).join('_'),
    // The shared tsconfig and tsup config, relative to the package (../../tooling in packages/).
    __TOOLING__: relative(packageDir, join(root, 'tooling')).split(sep).join('/'),
  };
}

function render(text, values) {
  return text.replace(/__(NAME|PASCAL|CAMEL|CONST|TOOLING)__/g, (key) => values[key]);
}

function templateFiles(dir) {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? templateFiles(path) : [path];
  });
}

let parsed;
try {
  parsed = parseArgs({
    allowPositionals: true,
    options: {
      out: { type: 'string' },
      'no-install': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
} catch (error) {
  fail(error.message);
}
if (parsed.values.help) {
  console.log(usage);
  process.exit(0);
}
if (parsed.positionals.length !== 1) fail('give exactly one env name');
const name = parsed.positionals[0];
if (!/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(name)) {
  fail(
    `"${name}" is not kebab-case: use lower-case letters and digits in words joined by "-", starting with a letter`,
  );
}
if (name.startsWith('env-'))
  fail(`leave out the "env-" prefix: "pnpm new:env ${name.slice(4)}" creates packages/env-${name.slice(4)}`);
const packageDir = resolve(parsed.values.out ?? join(root, 'packages', `env-${name}`));
if (existsSync(join(root, 'packages', `env-${name}`)))
  fail(`packages/env-${name} already exists; pick another name`);
if (existsSync(packageDir) && readdirSync(packageDir).length > 0)
  fail(`${packageDir} already exists and is not empty`);

const values = placeholders(name, packageDir);
for (const source of templateFiles(templateDir)) {
  const target = join(packageDir, render(relative(templateDir, source), values).replace(/\.tmpl$/, ''));
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, render(readFileSync(source, 'utf8'), values));
}
// Every package ships the project's license.
writeFileSync(join(packageDir, 'LICENSE'), readFileSync(join(root, 'LICENSE'), 'utf8'));
// Import order and line breaks depend on the name, so the house formatter settles them.
const biome = spawnSync(
  join(root, 'node_modules', '.bin', 'biome'),
  ['check', '--write', '--vcs-use-ignore-file=false', packageDir],
  { cwd: root, encoding: 'utf8' },
);
if (biome.status !== 0)
  fail(`"biome check --write" failed on the new package:\n${biome.stdout}${biome.stderr}`);
console.log(`Created @pilotrl/env-${name} in ${relative(process.cwd(), packageDir) || '.'}`);

if (parsed.values.out === undefined && !parsed.values['no-install']) {
  const install = spawnSync('pnpm', ['install'], { cwd: root, stdio: 'inherit' });
  if (install.status !== 0) fail('"pnpm install" failed; run it yourself to link the new package');
}
if (parsed.values.out === undefined) {
  console.log(`
Next:
  npx vitest run --project @pilotrl/env-${name}   # the conformance checks pass from the start
  then replace the example game in packages/env-${name}/src/index.ts with yours.`);
}
