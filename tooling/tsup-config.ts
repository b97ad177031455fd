// The one tsup configuration every package builds with: ESM + declarations for Node 20.
import { defineConfig, type Options } from 'tsup';

export function packageBuild(entry: string[] = ['src/index.ts'], overrides: Options = {}) {
  return defineConfig({
    entry,
    format: ['esm'],
    dts: true,
    clean: true,
    sourcemap: true,
    target: 'node20',
    platform: 'node',
    ...overrides,
  });
}
