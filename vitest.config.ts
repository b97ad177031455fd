// One vitest project per workspace package. Each package's exports are aliased to its `src/`
// (the `@pilotrl/source` export condition), so the whole suite runs without a build.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { defineConfig } from 'vitest/config';

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

const sourceAliases = packageDirs.flatMap((dir) => {
  const pkg = readPackage(dir);
  return Object.entries(pkg.exports ?? {}).flatMap(([subpath, target]) => {
    const source = typeof target === 'string' ? undefined : target['@pilotrl/source'];
    if (source === undefined) return [];
    const specifier = subpath === '.' ? pkg.name : `${pkg.name}/${subpath.replace(/^\.\//, '')}`;
    return [{ find: new RegExp(`^${escapeRegExp(specifier)}$`), replacement: resolve(dir, source) }];
  });
});

export default defineConfig({
  test: {
    projects: packageDirs.map((dir) => ({
      resolve: { alias: sourceAliases },
      test: {
        name: readPackage(dir).name,
        root: dir,
        include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
        testTimeout: 60_000,
        hookTimeout: 60_000,
      },
    })),
  },
});
