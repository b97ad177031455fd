// Picks the fastest available tfjs backend once per process: native TensorFlow with CUDA
// (@tensorflow/tfjs-node-gpu), native TensorFlow on CPU (@tensorflow/tfjs-node), wasm with the
// kernel overrides, then the pure-JS cpu backend. The native packages are optional and not
// dependencies of this package: install one next to it to have it picked up.
import { ConfigError } from '@pilotrl/core';
import * as tf from '@tensorflow/tfjs';
import { getThreadsCount } from '@tensorflow/tfjs-backend-wasm';
import { type InstalledOverrides, installWasmOverrides } from './wasm-overrides';
import { enableNodeWasmThreads } from './wasm-threads';

export type BackendChoice = 'tensorflow-gpu' | 'tensorflow' | 'wasm' | 'cpu';
export const BACKEND_ORDER: readonly BackendChoice[] = ['tensorflow-gpu', 'tensorflow', 'wasm', 'cpu'];

export interface BackendInfo {
  /** What was chosen. */
  choice: BackendChoice;
  /** The tfjs backend name now active (`tensorflow`, `wasm` or `cpu`). */
  tfBackend: string;
  /** Kernel overrides installed on wasm (empty elsewhere). */
  overrides: readonly string[];
  /** XNNPACK threads of the wasm backend (1 elsewhere). */
  threads: number;
  /** Why each faster choice was skipped. */
  skipped: Partial<Record<BackendChoice, string>>;
}

export interface BackendOptions {
  /**
   * `auto` (the default) takes the first that works in BACKEND_ORDER; a name forces that backend
   * and fails if it cannot start. The PILOTRL_TFJS_BACKEND environment variable sets the default.
   */
  backend?: 'auto' | BackendChoice;
  /** Install the wasm kernel overrides (default true; turn off only to compare with stock). */
  wasmOverrides?: boolean;
  /**
   * Threads of the wasm backend (default 1, or PILOTRL_TFJS_WASM_THREADS). More than one helps
   * models of dModel >= 128 on an otherwise idle machine; it takes effect only if wasm has not
   * started yet in this process, and then `shutdownBackend()` must run before the process exits.
   */
  wasmThreads?: number;
}

const NATIVE_PACKAGES: Record<'tensorflow-gpu' | 'tensorflow', string> = {
  'tensorflow-gpu': '@tensorflow/tfjs-node-gpu',
  tensorflow: '@tensorflow/tfjs-node',
};

let current: Promise<BackendInfo> | undefined;
let currentKey = '';
let overrides: InstalledOverrides | undefined;

/** Initialises (once) and reports the backend; later calls with the same options reuse it. */
export function initBackend(options: BackendOptions = {}): Promise<BackendInfo> {
  const requested =
    options.backend ?? (process.env.PILOTRL_TFJS_BACKEND as BackendOptions['backend']) ?? 'auto';
  if (requested !== 'auto' && !BACKEND_ORDER.includes(requested)) {
    throw new ConfigError(
      `unknown tfjs backend "${requested}" (from options.backend or PILOTRL_TFJS_BACKEND); use auto, ${BACKEND_ORDER.join(', ')}`,
    );
  }
  const threads = options.wasmThreads ?? Number(process.env.PILOTRL_TFJS_WASM_THREADS ?? 1);
  if (!Number.isInteger(threads) || threads < 1) {
    throw new ConfigError(
      `wasmThreads (or PILOTRL_TFJS_WASM_THREADS) must be a positive integer, got ${threads}`,
    );
  }
  const key = `${requested}/${options.wasmOverrides !== false}/${threads}`;
  if (current === undefined || key !== currentKey) {
    currentKey = key;
    current = start(requested, options.wasmOverrides !== false, threads);
  }
  return current;
}

/** Removes the wasm backend, which ends its pthread workers (needed before exit with threads). */
export function shutdownBackend(): void {
  if (tf.findBackend('wasm') !== null) tf.removeBackend('wasm');
  current = undefined;
  currentKey = '';
}

async function start(
  requested: 'auto' | BackendChoice,
  withOverrides: boolean,
  threads: number,
): Promise<BackendInfo> {
  const candidates = requested === 'auto' ? BACKEND_ORDER : [requested];
  const skipped: BackendInfo['skipped'] = {};
  for (const choice of candidates) {
    const problem = await tryStart(choice, withOverrides, threads);
    if (problem === undefined) {
      return {
        choice,
        tfBackend: tf.getBackend(),
        overrides: choice === 'wasm' ? (overrides?.kernels ?? []) : [],
        threads: choice === 'wasm' ? getThreadsCount() : 1,
        skipped,
      };
    }
    skipped[choice] = problem;
  }
  const reasons = Object.entries(skipped).map(([name, why]) => `${name}: ${why}`);
  throw new ConfigError(`no tfjs backend could start (${reasons.join('; ')})`);
}

async function tryStart(
  choice: BackendChoice,
  withOverrides: boolean,
  threads: number,
): Promise<string | undefined> {
  try {
    if (choice === 'tensorflow-gpu' || choice === 'tensorflow') {
      const specifier = NATIVE_PACKAGES[choice];
      try {
        await import(/* @vite-ignore */ specifier);
      } catch {
        return `${specifier} is not installed (npm install ${specifier}@4.22.0 next to @pilotrl/policy-tfjs)`;
      }
      if (!(await tf.setBackend('tensorflow')))
        return `${specifier} is installed but its backend did not start`;
      await tf.ready();
      return undefined;
    }
    if (choice === 'wasm') {
      if (withOverrides && overrides === undefined) overrides = installWasmOverrides();
      if (!withOverrides && overrides !== undefined) {
        overrides.uninstall();
        overrides = undefined;
      }
    }
    const wasmStarted = tf.engine().registry.wasm !== undefined;
    const shim =
      choice === 'wasm' && threads > 1 && !wasmStarted ? enableNodeWasmThreads(threads) : undefined;
    try {
      if (!(await tf.setBackend(choice))) return `the ${choice} backend did not start`;
      await tf.ready();
    } finally {
      shim?.restore();
    }
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
