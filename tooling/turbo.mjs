// Runs turbo with its anonymous telemetry off: turbo has no per-repository switch, only the
// environment variable, so every root script that calls turbo goes through here.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const turboBin = join(dirname(require.resolve('turbo/package.json')), 'bin', 'turbo');
const result = spawnSync(process.execPath, [turboBin, ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1', DO_NOT_TRACK: '1' },
});
if (result.error) throw result.error;
process.exit(result.status ?? 1);
