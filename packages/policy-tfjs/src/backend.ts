// Picks the fastest available tfjs backend once per process: native TensorFlow with CUDA
// (@tensorflow/tfjs-node-gpu), native TensorFlow on CPU (@tensorflow/tfjs-node), wasm with the
// kernel overrides, then the pure-JS cpu backend. The native packages are optional peer
// dependencies, made to work by `pilotrl-tfjs setup` (native/native-setup.ts); their install is
// checked on disk before they are loaded, so a damaged one is reported with its fix.
import { availableParallelism } from 'node:os';
import { ConfigError } from '@pilotrl/core';
// The umbrella package is loaded for its gradient registrations: tfjs-core publishes them only as
// extensionless ES modules that Node cannot load, and the umbrella's Node build bundles them.
import '@tensorflow/tfjs';
import { getThreadsCount } from '@tensorflow/tfjs-backend-wasm';
import * as tf from '@tensorflow/tfjs-core';
import {
  NATIVE_VARIANTS,
  type NativeVariant,
  nativeInstallState,
  nativePackageDir,
  setupCommand,
} from './native/native-install';
import { restoreUtilForTfjsNode } from './native/node-util-compat';
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
  /**
   * Threads the backend computes with: XNNPACK's on wasm; TensorFlow's intra-op pool on a native
   * backend (TF_NUM_INTRAOP_THREADS, else one per core); 1 on cpu.
   */
  threads: number;
  /** Why each faster choice was skipped. */
  skipped: Partial<Record<BackendChoice, string>>;
  /** The TensorFlow C library's version on the native backends. */
  tensorflowVersion?: string;
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

const NATIVE_CHOICES: Record<'tensorflow-gpu' | 'tensorflow', NativeVariant> = {
  'tensorflow-gpu': 'gpu',
  tensorflow: 'cpu',
};

/** Parses a backend name from a config, flag or environment variable; `source` names where it came from. */
export function parseBackendChoice(value: string, source: string): 'auto' | BackendChoice {
  if (value === 'auto' || (BACKEND_ORDER as readonly string[]).includes(value))
    return value as 'auto' | BackendChoice;
  throw new ConfigError(
    `unknown tfjs backend "${value}" (from ${source}); use auto, ${BACKEND_ORDER.join(', ')}`,
  );
}

let current: Promise<BackendInfo> | undefined;
let currentKey = '';
let overrides: InstalledOverrides | undefined;

/** Initialises (once) and reports the backend; later calls with the same options reuse it. */
export function initBackend(options: BackendOptions = {}): Promise<BackendInfo> {
  const requested =
    options.backend !== undefined
      ? parseBackendChoice(options.backend, 'options.backend')
      : parseBackendChoice(process.env.PILOTRL_TFJS_BACKEND ?? 'auto', 'PILOTRL_TFJS_BACKEND');
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
      const native = choice === 'tensorflow-gpu' || choice === 'tensorflow';
      return {
        choice,
        tfBackend: tf.getBackend(),
        overrides: choice === 'wasm' ? (overrides?.kernels ?? []) : [],
        threads: choice === 'wasm' ? getThreadsCount() : native ? nativeThreads() : 1,
        skipped,
        ...(native ? { tensorflowVersion: nativeTensorflowVersion() } : {}),
      };
    }
    skipped[choice] = problem;
  }
  const reasons = Object.entries(skipped).map(([name, why]) => `${name}: ${why}`);
  throw new ConfigError(`no tfjs backend could start (${reasons.join('; ')})`);
}

/** The native backend's binding, as tfjs-node exposes it on its backend object. */
interface NativeBackendInternals {
  binding: { TF_Version: string };
  isUsingGpuDevice: boolean;
}

/** TensorFlow's intra-op threads: its environment variable, else one per core (TensorFlow's default). */
function nativeThreads(): number {
  const fromEnv = Number(process.env.TF_NUM_INTRAOP_THREADS);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : availableParallelism();
}

function nativeTensorflowVersion(): string {
  return String((tf.backend() as unknown as NativeBackendInternals).binding.TF_Version);
}

/**
 * Loads a native package after its install checks out on disk. A damaged install (a setup that
 * did not finish, a truncated library, a binding built by another Node) is also announced as a
 * process warning, so that falling back to a slower backend is never silent.
 */
async function startNative(choice: 'tensorflow-gpu' | 'tensorflow'): Promise<string | undefined> {
  const variant = NATIVE_CHOICES[choice];
  const { packageName } = NATIVE_VARIANTS[variant];
  const loaded = tf.findBackend('tensorflow') as unknown as NativeBackendInternals | null;
  if (loaded !== null) {
    // One native package per process: both register the backend name `tensorflow`.
    if (choice === 'tensorflow-gpu' && !loaded.isUsingGpuDevice)
      return 'the native backend already loaded in this process has no GPU';
  } else {
    const state = nativeInstallState(variant, nativePackageDir(variant));
    if (state.state === 'damaged') process.emitWarning(state.reason, { code: 'PILOTRL_NATIVE_TFJS' });
    if (state.state !== 'ready') return state.reason;
    // TensorFlow's C++ info lines (CPU features, oneDNN) are noise for our users.
    process.env.TF_CPP_MIN_LOG_LEVEL ??= '2';
    restoreUtilForTfjsNode();
    try {
      await import(/* @vite-ignore */ packageName);
    } catch (error) {
      const reason = `${packageName} failed to load (${error instanceof Error ? error.message.split('\n')[0] : String(error)}); run ${setupCommand(variant, true)}`;
      process.emitWarning(reason, { code: 'PILOTRL_NATIVE_TFJS' });
      return reason;
    }
  }
  if (!(await tf.setBackend('tensorflow'))) return `${packageName} loaded but its backend did not start`;
  await tf.ready();
  if (choice === 'tensorflow-gpu' && !(tf.backend() as unknown as NativeBackendInternals).isUsingGpuDevice) {
    return `${packageName} loaded but TensorFlow sees no GPU (it needs an NVIDIA driver for CUDA 12, and the CUDA libraries that ${setupCommand('gpu', true)} places)`;
  }
  return undefined;
}

async function tryStart(
  choice: BackendChoice,
  withOverrides: boolean,
  threads: number,
): Promise<string | undefined> {
  try {
    if (choice === 'tensorflow-gpu' || choice === 'tensorflow') return await startNative(choice);
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

/** One line for logs: what runs, and why each faster backend was skipped. */
export function describeBackend(info: BackendInfo): string {
  const threads = `${info.threads} thread${info.threads === 1 ? '' : 's'}`;
  const what =
    info.tensorflowVersion !== undefined
      ? `${info.choice} (TensorFlow ${info.tensorflowVersion}, ${threads})`
      : info.choice === 'wasm'
        ? `wasm (${threads})`
        : info.choice;
  const skipped = Object.entries(info.skipped).map(([name, why]) => `${name} skipped: ${why}`);
  return [what, ...skipped].join('; ');
}
