import { readFileSync, statSync } from 'node:fs';
import { expect, it } from 'vitest';
import { enableNodeWasmThreads } from './wasm-threads';

// The backend asks for the pthread worker's script once per pool worker, each time as a new blob,
// while the workers made before are still reading the file: rewriting it in place let a worker
// read it empty, exit before it loaded, and the backend wait for it forever.
it('writes the pthread worker script once and hands every pool worker the same finished file', () => {
  const shim = enableNodeWasmThreads(2);
  try {
    const script = 'var nodeWorkerThreads=require("worker_threads");';
    const first = URL.createObjectURL(new Blob([script]));
    const written = statSync(first);
    const later = Array.from({ length: 7 }, () => URL.createObjectURL(new Blob([script])));
    expect(new Set(later)).toEqual(new Set([first]));
    const after = statSync(first);
    expect(after.ino).toBe(written.ino);
    expect(after.mtimeMs).toBe(written.mtimeMs);
    expect(readFileSync(first, 'utf8').endsWith(script)).toBe(true);
  } finally {
    shim.restore();
  }
});
