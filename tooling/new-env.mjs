// `pnpm new:env <name>`: creates packages/env-<name>/ from tooling/templates/env, a working env
// package (env, task source, oracle, conformance test, plug-in) that contributors then turn into their
// game, and registers it in the pilotrl app (its dependencies and apps/pilotrl/src/plugins/builtin.ts).
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

/**
 * Wires the new package into the `pilotrl` app: a dependency in its package.json and the package's
 * plug-in in its built-in list, so `pilotrl play --env <name>` and configs naming it work.
 */
function registerInApp() {
  const appManifestPath = join(root, 'apps', 'pilotrl', 'package.json');
  const builtinPath = join(root, 'apps', 'pilotrl', 'src', 'plugins', 'builtin.ts');
  const packageName = `@pilotrl/env-${name}`;
  const alias = values.__CAMEL__;
  let builtin = readFileSync(builtinPath, 'utf8');
  if (new RegExp(`\\b${alias}\\b`).test(builtin)) {
    fail(`${relative(root, builtinPath)} already uses the name "${alias}"; pick another env name`);
  }
  const imports = [...builtin.matchAll(/^import \{ plugin as \w+ \} from '[^']+';$/gm)];
  const list = /(export const builtinPlugins: readonly PilotrlPlugin\[\] = \[)([^\]]*)(\];)/.exec(builtin);
  if (imports.length === 0 || list === null) {
    fail(`cannot find the plug-in imports and the builtinPlugins list in ${relative(root, builtinPath)}`);
  }
  const lastImport = imports.at(-1);
  const at = lastImport.index + lastImport[0].length;
  builtin = `${builtin.slice(0, at)}\nimport { plugin as ${alias} } from '${packageName}';${builtin.slice(at)}`;
  builtin = builtin.replace(list[0], `${list[1]}${list[2].trimEnd().replace(/,$/, '')}, ${alias}${list[3]}`);
  writeFileSync(builtinPath, builtin);

  const manifest = JSON.parse(readFileSync(appManifestPath, 'utf8'));
  manifest.dependencies = Object.fromEntries(
    Object.entries({ ...manifest.dependencies, [packageName]: 'workspace:^' }).sort(([a], [b]) =>
      a < b ? -1 : 1,
    ),
  );
  writeFileSync(appManifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  const format = spawnSync(join(root, 'node_modules', '.bin', 'biome'), ['check', '--write', builtinPath], {
    cwd: root,
    encoding: 'utf8',
  });
  if (format.status !== 0)
    fail(`"biome check --write" failed on ${builtinPath}:\n${format.stdout}${format.stderr}`);
  console.log(
    `Registered ${packageName} in the pilotrl app (apps/pilotrl/package.json, ${relative(root, builtinPath)})`,
  );
}

if (parsed.values.out === undefined) registerInApp();

if (parsed.values.out === undefined && !parsed.values['no-install']) {
  // A new package changes the lockfile, so the install may update it (CI environments default to frozen).
  const install = spawnSync('pnpm', ['install', '--no-frozen-lockfile'], { cwd: root, stdio: 'inherit' });
  if (install.status !== 0) fail('"pnpm install" failed; run it yourself to link the new package');
}
if (parsed.values.out === undefined) {
  console.log(`
Next:
  npx vitest run --project @pilotrl/env-${name}   # the conformance checks pass from the start
  pnpm build && pnpm pilotrl play --env ${name}    # play it in the terminal
  git add packages/env-${name}                     # the pack check packs what git tracks
  then replace the example game in packages/env-${name}/src/index.ts with yours.`);
}
