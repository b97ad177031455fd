// Multi-threaded wasm in Node for @tensorflow/tfjs-backend-wasm 4.22.0. The backend hard-wires
// threads off in Node, and forcing the flag fails: emscripten is handed `blob:` URLs for its
// pthread worker and main script, which worker_threads cannot load. This shim captures those
// blobs, writes them to temporary files and hands out the file paths instead, prepends the
// bundle's top-level helpers the factory source refers to, and reports enough CPU cores while the
// module starts (the pool is capped at cores / 2). Call it before the wasm backend initialises,
// and `tf.removeBackend('wasm')` at shutdown, or the pthread workers keep the process alive.
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { join } from 'node:path';
import { setThreadsCount } from '@tensorflow/tfjs-backend-wasm';
import * as tf from '@tensorflow/tfjs-core';

const requireHere = createRequire(import.meta.url);

// Identifiers the factory source uses but the rollup bundle defines at its top level.
function prelude(): string {
  const bundle = readFileSync(requireHere.resolve('@tensorflow/tfjs-backend-wasm'), 'utf8');
  const functionSource = (name: string) => {
    const start = bundle.indexOf(`\nfunction ${name}(`);
    if (start < 0)
      throw new Error(
        `helper ${name} not found in the tfjs-backend-wasm bundle (version other than 4.22.0?)`,
      );
    let depth = 0;
    let end = bundle.indexOf('{', start);
    for (; end < bundle.length; end++) {
      if (bundle[end] === '{') depth++;
      else if (bundle[end] === '}' && --depth === 0) break;
    }
    return bundle.slice(start + 1, end + 1);
  };
  return (
    "var require$$0=require('fs'),require$$1=require('path'),require$$3=require('perf_hooks')," +
    "require$$4=require('os');var commonjsGlobal=globalThis;\n" +
    ['__values', '__read', '__spreadArray'].map(functionSource).join('\n') +
    '\n'
  );
}

/** Makes the next wasm backend start use `threads` XNNPACK threads; call `restore()` after tf.ready(). */
export function enableNodeWasmThreads(threads: number): { restore(): void } {
  const dir = mkdtempSync(join(os.tmpdir(), 'pilotrl-tfjs-wasm-'));
  // Workers started later (a pool that grows) read the files too, so they stay until exit.
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const mainPath = join(dir, 'main.js');
  const workerPath = join(dir, 'worker.js');
  // The backend asks for the worker script once per pool worker while earlier workers are still
  // reading it, so it is written once, whole (renamed into place), never rewritten.
  let workerWritten = false;
  const OriginalBlob = globalThis.Blob;
  const originalCreate = URL.createObjectURL;
  const originalCpus = os.cpus;
  const texts = new WeakMap<Blob, string>();
  class CapturingBlob extends OriginalBlob {
    constructor(...args: ConstructorParameters<typeof Blob>) {
      super(...args);
      const parts = args[0];
      const text = (parts ?? []).map((part) => (typeof part === 'string' ? part : '')).join('');
      if (text.startsWith('var WasmBackendModuleThreadedSimd')) writeFileSync(mainPath, prelude() + text);
      texts.set(this, text);
    }
  }
  globalThis.Blob = CapturingBlob;
  URL.createObjectURL = (blob: Blob) => {
    const text = texts.get(blob);
    if (text?.includes('worker_threads')) {
      if (!workerWritten) {
        const shim = `URL.createObjectURL=function(){return ${JSON.stringify(mainPath)}};URL.revokeObjectURL=function(){};\n`;
        writeFileSync(`${workerPath}.partial`, shim + text);
        renameSync(`${workerPath}.partial`, workerPath);
        workerWritten = true;
      }
      return workerPath;
    }
    return originalCreate.call(URL, blob);
  };
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', true);
  setThreadsCount(threads);
  os.cpus = () => {
    const cpus = originalCpus.call(os);
    while (cpus.length < 2 * threads) cpus.push(cpus[0]!);
    return cpus;
  };
  return {
    restore() {
      globalThis.Blob = OriginalBlob;
      URL.createObjectURL = originalCreate;
      os.cpus = originalCpus;
    },
  };
}
