// The real-engine suite (`pnpm test:engines`): our engines against the originals running in Python
// (ALFWorld on TextWorld, BabyAI on Minigrid), from the reference environments each env package's
// `reference/setup.sh` builds. CI runs it beside `pnpm test`; without those environments its
// tests skip, loudly (and fail when CI is set).
import { defineConfig } from 'vitest/config';
import { ENGINE_TESTS, sourceAliases } from './vitest.config';

export default defineConfig({
  resolve: { alias: sourceAliases },
  test: {
    name: 'engines',
    include: ENGINE_TESTS.map((pattern) => `packages/${pattern}`),
    exclude: ['**/node_modules/**'],
    testTimeout: 600_000,
    hookTimeout: 600_000,
  },
});
