// The real-engine suite (`pnpm test:engines`): our engines against the originals running in Python
// (ALFWorld on TextWorld, BabyAI on Minigrid) and our clients against real servers (llama.cpp),
// from the reference environments each package's `reference/setup.sh` builds. CI runs it beside `pnpm test`; without those environments its
// tests skip, loudly (and fail when CI is set).
import { defineConfig } from 'vitest/config';
import { ENGINE_TESTS, sourceAliases } from './vitest.config';

export default defineConfig({
  resolve: { alias: sourceAliases },
  test: {
    name: 'engines',
    include: ENGINE_TESTS.flatMap((pattern) => [`packages/${pattern}`, `apps/${pattern}`]),
    exclude: ['**/node_modules/**'],
    testTimeout: 600_000,
    hookTimeout: 600_000,
  },
});
