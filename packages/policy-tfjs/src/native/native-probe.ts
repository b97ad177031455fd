// Loads a native backend package in a child Node process and runs one matmul there, so that a
// broken install (a library the loader rejects, a binding that crashes) ends the child, never the
// caller. Setup uses it to verify what it built; the doctor uses it to report what loads.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { z } from 'zod';
import { RESTORE_UTIL_SOURCE } from './node-util-compat';

const probeResultSchema = z.object({
  tensorflowVersion: z.string(),
  backend: z.string(),
  gpu: z.boolean(),
  matmul: z.array(z.number()),
});

export type ProbeResult = ({ ok: true } & z.infer<typeof probeResultSchema>) | { ok: false; reason: string };

// CommonJS on purpose: the package is CommonJS and its `require` of the binding is what we test.
// The concat runs tfjs-node's path for a list of inputs, which needs `util.isNullOrUndefined`.
const PROBE_SCRIPT = `
${RESTORE_UTIL_SOURCE}
const tf = require(process.argv[1]);
const product = tf.matMul(tf.concat([tf.tensor2d([[1, 2]]), tf.tensor2d([[3, 4]])]), tf.tensor2d([[5], [6]]));
const backend = tf.backend();
process.stdout.write(JSON.stringify({
  tensorflowVersion: String(backend.binding.TF_Version),
  backend: tf.getBackend(),
  gpu: Boolean(backend.isUsingGpuDevice),
  matmul: Array.from(product.dataSync()),
}));
`;

/** Loads the package at `packageDir` in a child process; `timeoutMs` bounds a hung load. */
export function probeNativePackage(packageDir: string, timeoutMs = 120_000): ProbeResult {
  const child = spawnSync(process.execPath, ['-e', PROBE_SCRIPT, join(packageDir, 'dist', 'index.js')], {
    encoding: 'utf8',
    timeout: timeoutMs,
    env: { ...process.env, TF_CPP_MIN_LOG_LEVEL: process.env.TF_CPP_MIN_LOG_LEVEL ?? '2' },
  });
  if (child.error !== undefined)
    return { ok: false, reason: `could not run the probe: ${child.error.message}` };
  if (child.signal !== null) return { ok: false, reason: `loading it killed the process (${child.signal})` };
  if (child.status !== 0) {
    const lines = child.stderr.split('\n').filter((line) => /Error|error:/.test(line));
    return {
      ok: false,
      reason: `loading it failed: ${(lines[0] ?? child.stderr.trim().split('\n').at(-1) ?? '').trim()}`,
    };
  }
  const parsed = probeResultSchema.safeParse(JSON.parse(child.stdout));
  if (!parsed.success) return { ok: false, reason: `the probe printed ${child.stdout.slice(0, 200)}` };
  const [a, b] = parsed.data.matmul;
  if (a !== 17 || b !== 39) {
    return { ok: false, reason: `a 2x2 matmul gave [${parsed.data.matmul.join(', ')}], expected [17, 39]` };
  }
  return { ok: true, ...parsed.data };
}
