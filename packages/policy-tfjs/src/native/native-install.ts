// Where a native TensorFlow backend package lives on disk and whether its install is whole.
// `@tensorflow/tfjs-node` and `-gpu` need the TensorFlow C library in their `deps/lib` and a
// binding built against it in `lib/napi-v<N>`; our setup (native-setup.ts) places both from
// PyPI's TensorFlow wheel and records what it placed in `deps/pilotrl-native.json`. This module
// checks that record before the package is loaded, so a half-finished or damaged install is
// reported with its fix instead of crashing the process inside the dynamic loader.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { z } from 'zod';

export type NativeVariant = 'cpu' | 'gpu';

export interface NativeVariantSpec {
  variant: NativeVariant;
  /** The npm package that provides the `tensorflow` tfjs backend. */
  packageName: '@tensorflow/tfjs-node' | '@tensorflow/tfjs-node-gpu';
  /** PyPI's wheel that carries the TensorFlow C library. */
  wheel: { name: string; version: string };
}

export const NATIVE_VARIANTS: Record<NativeVariant, NativeVariantSpec> = {
  cpu: {
    variant: 'cpu',
    packageName: '@tensorflow/tfjs-node',
    wheel: { name: 'tensorflow-cpu', version: '2.15.1' },
  },
  gpu: {
    variant: 'gpu',
    packageName: '@tensorflow/tfjs-node-gpu',
    wheel: { name: 'tensorflow', version: '2.15.1' },
  },
};

/** The npm version of tfjs-node(-gpu) whose binding this setup builds (the tfjs-core we run on). */
export const TFJS_NODE_VERSION = '4.22.0';

/** The libraries the binding links, as placed in `deps/lib`. */
export const NATIVE_LIBRARIES = ['libtensorflow_cc.so.2', 'libtensorflow_framework.so.2'] as const;

export const SETUP_RECORD = 'pilotrl-native.json';

export const setupRecordSchema = z.object({
  variant: z.enum(['cpu', 'gpu']),
  tensorflowVersion: z.string(),
  wheel: z.string(),
  /** `process.versions.modules` of the Node that built the binding. */
  nodeAbi: z.string(),
  napiVersion: z.number().int(),
  /** Bytes of every file the setup placed, by path relative to the package root. */
  files: z.record(z.string(), z.number().int().nonnegative()),
  createdAt: z.string(),
});
export type SetupRecord = z.infer<typeof setupRecordSchema>;

/** How to run the setup again, as a user of the workspace or of the published package types it. */
export function setupCommand(variant: NativeVariant, force = false): string {
  const flags = [variant === 'gpu' ? '--gpu' : '', force ? '--force' : ''].filter(Boolean).join(' ');
  return `pnpm tfjs:setup${flags ? ` ${flags}` : ''} (outside this repository: npx pilotrl-tfjs setup${flags ? ` ${flags}` : ''})`;
}

/** The installed package's root directory, or undefined when it is not installed. */
export function nativePackageDir(variant: NativeVariant, from: string = import.meta.url): string | undefined {
  const require = createRequire(from);
  try {
    return dirname(require.resolve(`${NATIVE_VARIANTS[variant].packageName}/package.json`));
  } catch {
    return undefined;
  }
}

/**
 * The N-API version node-pre-gyp picks for the binding: the highest the package lists that this
 * Node supports. The package loads `lib/napi-v<N>/tfjs_binding.node` for that N.
 */
export function bindingNapiVersion(packageDir: string): number {
  const pkg = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
    binary?: { napi_versions?: number[] };
  };
  const supported = Number(process.versions.napi);
  const listed = (pkg.binary?.napi_versions ?? []).filter((n) => n <= supported);
  if (listed.length === 0) {
    throw new Error(
      `${packageDir}/package.json lists no N-API version this Node (napi ${supported}) supports`,
    );
  }
  return Math.max(...listed);
}

export function bindingPath(packageDir: string): string {
  return join(packageDir, 'lib', `napi-v${bindingNapiVersion(packageDir)}`, 'tfjs_binding.node');
}

/** The setup's record, or undefined when there is none or it does not parse (a cut-short write). */
export function readSetupRecord(packageDir: string): SetupRecord | undefined {
  const path = join(packageDir, 'deps', SETUP_RECORD);
  if (!existsSync(path)) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
  const parsed = setupRecordSchema.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}

export type InstallState =
  | { state: 'not-installed'; reason: string }
  | { state: 'not-set-up'; reason: string }
  | { state: 'damaged'; reason: string }
  | { state: 'ready'; packageDir: string; record: SetupRecord | undefined };

/**
 * Checks files only (no loading): whether the package is there, its binding built, and (when our
 * setup placed it) every placed file whole and built for this Node. Each non-ready state carries
 * one sentence that says what is wrong and how to fix it.
 */
export function nativeInstallState(variant: NativeVariant, packageDir: string | undefined): InstallState {
  const { packageName } = NATIVE_VARIANTS[variant];
  if (packageDir === undefined) {
    return {
      state: 'not-installed',
      reason: `${packageName} is not installed (npm install ${packageName}@${TFJS_NODE_VERSION} next to @pilotrl/policy-tfjs, then ${setupCommand(variant)})`,
    };
  }
  const ourLibrary = join(packageDir, 'deps', 'lib', NATIVE_LIBRARIES[0]);
  const record = readSetupRecord(packageDir);
  if (record === undefined && existsSync(ourLibrary)) {
    return {
      state: 'damaged',
      reason: `${packageName}: the native setup did not finish (libraries placed, no ${SETUP_RECORD}); run ${setupCommand(variant, true)}`,
    };
  }
  if (record !== undefined) {
    for (const [file, bytes] of Object.entries(record.files)) {
      const path = join(packageDir, file);
      const actual = existsSync(path) ? statSync(path).size : undefined;
      if (actual !== bytes) {
        return {
          state: 'damaged',
          reason: `${packageName}: ${file} is ${actual === undefined ? 'missing' : `${actual} bytes, expected ${bytes}`}; run ${setupCommand(variant, true)}`,
        };
      }
    }
    // The binding speaks Node-API, whose ABI is stable: one built by Node 20 loads in Node 24 and 26,
    // and only a Node older than the Node-API version it was built for cannot load it.
    const napi = Number(process.versions.napi);
    if (napi < record.napiVersion) {
      return {
        state: 'damaged',
        reason: `${packageName}: its binding was built for Node-API ${record.napiVersion} (by Node ABI ${record.nodeAbi}) and this Node ${process.version} has Node-API ${napi}; run ${setupCommand(variant, true)}`,
      };
    }
  }
  if (!existsSync(bindingPath(packageDir))) {
    return {
      state: 'not-set-up',
      reason: `${packageName} is installed but its binding is not built (its own install downloads TensorFlow from a host that may be unreachable); run ${setupCommand(variant)}`,
    };
  }
  return { state: 'ready', packageDir, record };
}
