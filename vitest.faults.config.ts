// The fault-injection suite (`pnpm test:faults`): trainers killed at every file operation of a run
// directory's making and of its checkpoints, then resumed. It runs in CI beside `pnpm test`, and
// apart from it, because it starts a trainer process per kill point (several minutes on 2 cores).
import { defineConfig } from 'vitest/config';
import { sourceAliases } from './vitest.config';

export default defineConfig({
  resolve: { alias: sourceAliases },
  test: {
    name: 'faults',
    root: 'apps/pilotrl',
    include: ['faults/**/*.test.ts'],
    testTimeout: 1_800_000,
    hookTimeout: 60_000,
  },
});
