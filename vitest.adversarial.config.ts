// The adversarial suite (`pnpm test:adversarial`): `pilotrl serve-env` run as its own process and
// attacked over raw sockets (malformed upgrades, path ids, cross-origin pages, unread replies, id
// enumeration, connection floods, slow headers, SIGTERM in flight). It runs apart from `pnpm test`
// because it times a well-behaved client and reads the server's memory, which other tests running
// beside it would disturb.
import { defineConfig } from 'vitest/config';
import { sourceAliases } from './vitest.config';

export default defineConfig({
  resolve: { alias: sourceAliases },
  test: {
    name: 'adversarial',
    root: 'apps/pilotrl',
    include: ['adversarial/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
