// One vitest project per workspace package. Each package's exports are aliased to its `src/`
// (the `@pilotrl/source` export condition), so the whole suite runs without a build.
// The policy's tests run twice: on wasm, and on native TensorFlow where it is set up (always in
// CI, where a missing native backend fails the run instead of skipping it). Tests against the real
// Python engines (`*.engine.test.ts`) run apart, in `pnpm test:engines` (vitest.engines.config.ts).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import { nativeInstallState, nativePackageDir } from './packages/policy-tfjs/src/native/native-install';

interface PackageJson {
  name: string;
  exports?: Record<string, string | Record<string, string>>;
}

const workspaceRoot = import.meta.dirname;
const packageDirs = ['packages', 'apps'].flatMap((group) => {
  const groupDir = join(workspaceRoot, group);
  if (!existsSync(groupDir)) return [];
  return readdirSync(groupDir)
    .map((name) => join(groupDir, name))
    .filter((dir) => existsSync(join(dir, 'package.json')));
});

const readPackage = (dir: string): PackageJson => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export const sourceAliases = packageDirs.flatMap((dir) => {
  const pkg = readPackage(dir);
  return Object.entries(pkg.exports ?? {}).flatMap(([subpath, target]) => {
    const source = typeof target === 'string' ? undefined : target['@pilotrl/source'];
    if (source === undefined) return [];
    const specifier = subpath === '.' ? pkg.name : `${pkg.name}/${subpath.replace(/^\.\//, '')}`;
    return [{ find: new RegExp(`^${escapeRegExp(specifier)}$`), replacement: resolve(dir, source) }];
  });
});

/** Tests that drive a real engine (TextWorld/ALFWorld, Minigrid) in Python: `pnpm test:engines`. */
export const ENGINE_TESTS = ['**/*.engine.test.ts'];

const POLICY = '@pilotrl/policy-tfjs';
const nativeReady =
  nativeInstallState('cpu', nativePackageDir('cpu', join(workspaceRoot, 'packages/policy-tfjs/'))).state ===
  'ready';

function project(dir: string, name: string, extra: TestProjectInlineConfiguration['test'] = {}) {
  return {
    resolve: { alias: sourceAliases },
    test: {
      name,
      root: dir,
      include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'bench/**/*.test.ts'],
      testTimeout: 60_000,
      hookTimeout: 60_000,
      ...extra,
      exclude: ['**/node_modules/**', ...ENGINE_TESTS, ...(extra.exclude ?? [])],
    },
  };
}

export default defineConfig({
  test: {
    projects: packageDirs.flatMap((dir) => {
      const name = readPackage(dir).name;
      if (name !== POLICY) return [project(dir, name)];
      const onWasm = project(dir, name, { env: { PILOTRL_TFJS_BACKEND: 'wasm' } });
      if (!nativeReady && !process.env.CI) return [onWasm];
      const onNative = project(dir, `${name} (tensorflow)`, {
        env: { PILOTRL_TFJS_BACKEND: 'tensorflow' },
        // Backend-independent tests and the ones about wasm itself run once, in the wasm project.
        exclude: ['src/wasm-*.test.ts', 'src/native/**', 'src/backend-parity.test.ts', 'src/*.fuzz.test.ts'],
      });
      return [onWasm, onNative];
    }),
  },
});
