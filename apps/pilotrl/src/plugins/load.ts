// Plug-ins loaded by name: a package installed where the config (or the working directory) can see
// it, or a file. The module must export `plugin` (made with `definePlugin` of @pilotrl/core); its
// shape is checked and its envs registered, so a curriculum can name them. Every failure says
// which plug-in, where it was looked for, and what to do.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  ConfigError,
  createEnvProvider,
  type DefinedPlugin,
  definePlugin,
  describeIssues,
  type EnvDescriptor,
  type EnvProvider,
  InvalidArgumentError,
  printable,
  stepResultSchema,
} from '@pilotrl/core';
import { runPaths } from '../run/run-dir';
import { registerPlugin } from './registry';

/** An npm package name, optionally with a subpath: `env-guess`, `@someone/env-guess/plugin`. */
const PACKAGE_SPECIFIER = /^((?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*)(\/[^\0]+)?$/i;

/** A specifier that names a file or folder rather than a package. */
export const isPathSpecifier = (specifier: string) =>
  specifier.startsWith('./') || specifier.startsWith('../') || isAbsolute(specifier);

/** The conditions a plug-in's `exports` are read with: Node's, for `import`. */
const CONDITIONS = new Set(['import', 'node', 'default']);

/** The file an `exports` target resolves to under `CONDITIONS`, or undefined. */
function exportTarget(target: unknown): string | undefined {
  if (typeof target === 'string') return target;
  if (Array.isArray(target)) {
    for (const entry of target) {
      const file = exportTarget(entry);
      if (file !== undefined) return file;
    }
    return undefined;
  }
  if (typeof target !== 'object' || target === null) return undefined;
  for (const [condition, value] of Object.entries(target)) {
    if (CONDITIONS.has(condition)) {
      const file = exportTarget(value);
      if (file !== undefined) return file;
    }
  }
  return undefined;
}

/** The entry file of the package in `packageDir` for `subpath` (`.` or `./x`), or undefined. */
function packageEntry(packageDir: string, subpath: string): string | undefined {
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
    exports?: unknown;
    main?: string;
  };
  const { exports } = manifest;
  let target: string | undefined;
  if (exports !== undefined) {
    const keyed =
      typeof exports === 'object' && exports !== null && !Array.isArray(exports)
        ? Object.keys(exports).some((key) => key.startsWith('.'))
        : false;
    target = keyed
      ? exportTarget((exports as Record<string, unknown>)[subpath])
      : subpath === '.'
        ? exportTarget(exports)
        : undefined;
  } else {
    target = subpath === '.' ? (manifest.main ?? 'index.js') : subpath;
  }
  if (target === undefined) return undefined;
  const file = resolve(packageDir, target);
  // An entry outside its own package is not one.
  return file.startsWith(`${packageDir}${sep}`) ? file : undefined;
}

/**
 * The file `specifier` names: a path (relative to `baseDir`), or a package found in the
 * `node_modules` of `baseDir`, its parents, or of `fallbackDir` and its parents.
 */
export function resolvePlugin(specifier: string, baseDir: string, fallbackDir = process.cwd()): string {
  const shown = printable(specifier, 200);
  if (isPathSpecifier(specifier)) {
    const file = resolve(baseDir, specifier);
    if (!existsSync(file)) throw new ConfigError(`plug-in ${shown}: no such file ${file}`);
    return statSync(file).isDirectory() ? resolvePackageDir(file, '.', shown) : file;
  }
  const match = PACKAGE_SPECIFIER.exec(specifier);
  if (match === null) {
    throw new ConfigError(
      `plug-in ${shown} is neither a package name (e.g. @someone/env-guess) nor a path starting with ./, ../ or /`,
    );
  }
  const [, name, subpath] = match as unknown as [string, string, string | undefined];
  const searched: string[] = [];
  for (const start of new Set([resolve(baseDir), resolve(fallbackDir)])) {
    for (let dir = start; ; dir = dirname(dir)) {
      const packageDir = join(dir, 'node_modules', name);
      if (existsSync(join(packageDir, 'package.json'))) {
        return resolvePackageDir(packageDir, subpath === undefined ? '.' : `.${subpath}`, shown);
      }
      if (dirname(dir) === dir) break;
    }
    searched.push(start);
  }
  throw new ConfigError(
    `plug-in ${shown} is not installed: no node_modules/${name} in ${searched.join(' or ')} or a folder above; install it there (npm install ${name}), or name its file with a path`,
  );
}

function resolvePackageDir(packageDir: string, subpath: string, shown: string): string {
  let file: string | undefined;
  try {
    file = packageEntry(packageDir, subpath);
  } catch (cause) {
    throw new ConfigError(
      `plug-in ${shown}: cannot read ${join(packageDir, 'package.json')}: ${(cause as Error).message}`,
    );
  }
  if (file === undefined || !existsSync(file)) {
    throw new ConfigError(
      `plug-in ${shown}: ${packageDir} has no ${subpath === '.' ? 'entry' : `"${subpath}" export`} for import${file === undefined ? '' : ` (${file} is missing: is the package built?)`}`,
    );
  }
  return file;
}

/** Loads one plug-in module, checks what it exports and registers its envs. */
export async function loadPlugin(specifier: string, baseDir: string): Promise<DefinedPlugin> {
  const file = resolvePlugin(specifier, baseDir);
  const shown = printable(specifier, 200);
  let module: { plugin?: unknown };
  try {
    module = (await import(pathToFileURL(file).href)) as { plugin?: unknown };
  } catch (cause) {
    throw new ConfigError(
      `plug-in ${shown}: loading ${file} failed: ${printable((cause as Error).message, 400)}`,
      {
        cause,
      },
    );
  }
  if (module.plugin === undefined) {
    throw new ConfigError(
      `plug-in ${shown} (${file}) exports no "plugin"; a plug-in module exports one: export const plugin = definePlugin({ name, envs: [...] }) with definePlugin from @pilotrl/core`,
    );
  }
  let plugin: DefinedPlugin;
  try {
    plugin = definePlugin(module.plugin as Parameters<typeof definePlugin>[0]);
    for (const descriptor of plugin.envs) await smokeTest(descriptor, plugin.name);
    registerPlugin(plugin);
  } catch (cause) {
    throw new ConfigError(`plug-in ${shown} (${file}): ${(cause as Error).message}`, { cause });
  }
  return plugin;
}

/**
 * One real reset and step of a plug-in's env, each result checked against core's schema, so that
 * an env breaking the contract is refused here rather than ending every episode in error later.
 * An env that needs options the check cannot know (its `create({})` throws) is left to its run.
 */
async function smokeTest(descriptor: EnvDescriptor, pluginName: string): Promise<void> {
  let created: EnvProvider;
  try {
    created = descriptor.create({});
  } catch {
    return;
  }
  // What create() returned is checked (and refused, naming the plug-in) by the one provider check.
  const provider = createEnvProvider({ ...descriptor, create: () => created }, {}, pluginName);
  const where = `env "${descriptor.id}"`;
  const [split] = provider.tasks.splits();
  if (split === undefined) throw new InvalidArgumentError(`${where}: its task source has no split`);
  const [task] = await provider.tasks.tasks(split, { offset: 0, limit: 1 });
  if (task === undefined) throw new InvalidArgumentError(`${where}: split "${split}" has no task`);
  const env = provider.createEnv({ maxSteps: 2 });
  const check = (result: unknown, call: string) => {
    const parsed = stepResultSchema.safeParse(result);
    if (!parsed.success) {
      throw new InvalidArgumentError(
        `${where}: ${call} returned a result outside the TextEnv contract (${describeIssues(parsed.error.issues).slice(0, 3).join('; ')}); run checkEnv of @pilotrl/env-testkit on it`,
      );
    }
    return parsed.data;
  };
  try {
    const first = check(
      await env.reset({ seed: task.seed, taskId: task.taskId }),
      `reset of task "${task.taskId}"`,
    );
    const [action] = first.admissibleActions;
    if (action !== undefined) check(await env.step(action), `step("${printable(action, 80)}")`);
  } finally {
    await env.close?.();
  }
}

/** Loads `specifiers` in order (paths relative to `baseDir`). */
export async function loadPlugins(specifiers: readonly string[], baseDir: string): Promise<DefinedPlugin[]> {
  const plugins: DefinedPlugin[] = [];
  for (const specifier of specifiers) plugins.push(await loadPlugin(specifier, baseDir));
  return plugins;
}

/**
 * The `plugins` of a raw config value (before it is parsed, so its envs are known to the parse),
 * with path specifiers made absolute against `baseDir`, loaded. Returns the value with the
 * absolute specifiers, so a run directory's copy finds them again from anywhere.
 */
export async function loadConfigPlugins(value: unknown, baseDir: string): Promise<unknown> {
  if (typeof value !== 'object' || value === null || !('plugins' in value)) return value;
  const { plugins } = value as { plugins: unknown };
  // The schema reports a malformed list with its key; only a list of strings is loaded here.
  if (!Array.isArray(plugins) || !plugins.every((entry) => typeof entry === 'string')) return value;
  const specifiers = plugins.map((entry: string) =>
    isPathSpecifier(entry) ? resolve(baseDir, entry) : entry,
  );
  await loadPlugins(specifiers, baseDir);
  return { ...value, plugins: specifiers };
}

/**
 * Loads the plug-ins a run directory's config names, before the config is read (`readRunConfig`):
 * resuming, evaluating or reporting a run needs its envs. A run without plug-ins loads nothing.
 */
export async function loadRunPlugins(runDir: string): Promise<void> {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(runPaths(runDir).configJson, 'utf8'));
  } catch {
    // readRunConfig reports a missing or damaged config with its own words.
    return;
  }
  await loadConfigPlugins(value, runDir);
}
