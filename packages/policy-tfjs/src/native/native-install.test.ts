// The install checks that run before a native package is loaded, on package directories laid out
// as the setup lays them, then broken the ways an interrupted setup or a disk breaks them.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NATIVE_LIBRARIES, nativeInstallState, SETUP_RECORD, type SetupRecord } from './native-install';
import { setupNativeBackend } from './native-setup';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A package directory with tfjs-node's binary settings, the two libraries and the binding. */
function fakePackage(options: { record?: Partial<SetupRecord> | false; binding?: boolean } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'tfjs-node-'));
  dirs.push(dir);
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: '@tensorflow/tfjs-node', binary: { napi_versions: [3, 4, 5, 6, 7, 8] } }),
  );
  mkdirSync(join(dir, 'deps', 'lib'), { recursive: true });
  for (const name of NATIVE_LIBRARIES) writeFileSync(join(dir, 'deps', 'lib', name), Buffer.alloc(1000));
  if (options.binding !== false) {
    mkdirSync(join(dir, 'lib', 'napi-v8'), { recursive: true });
    writeFileSync(join(dir, 'lib', 'napi-v8', 'tfjs_binding.node'), Buffer.alloc(10));
  }
  if (options.record !== false) {
    const record: SetupRecord = {
      variant: 'cpu',
      tensorflowVersion: '2.15.1',
      wheel: 'tensorflow_cpu-2.15.1-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl',
      nodeAbi: process.versions.modules,
      napiVersion: 8,
      files: {
        'deps/lib/libtensorflow_cc.so.2': 1000,
        'deps/lib/libtensorflow_framework.so.2': 1000,
        'lib/napi-v8/tfjs_binding.node': 10,
      },
      createdAt: '2026-12-01T00:00:00.000Z',
      ...options.record,
    };
    writeFileSync(join(dir, 'deps', SETUP_RECORD), JSON.stringify(record));
  }
  return dir;
}

describe('native install state', () => {
  it('is ready when every placed file has the size the setup recorded', () => {
    const state = nativeInstallState('cpu', fakePackage());
    expect(state.state).toBe('ready');
  });

  it('names the install command when the package is missing', () => {
    const state = nativeInstallState('gpu', undefined);
    expect(state).toMatchObject({ state: 'not-installed' });
    expect(state.state !== 'ready' && state.reason).toMatch(
      /npm install @tensorflow\/tfjs-node-gpu@4\.22\.0/,
    );
  });

  it('reports a package whose binding was never built, with the setup command', () => {
    const state = nativeInstallState('cpu', fakePackage({ record: false, binding: false }));
    expect(state.state).toBe('damaged'); // our libraries are there without a record: setup was cut short
    const dir = fakePackage({ record: false, binding: false });
    rmSync(join(dir, 'deps'), { recursive: true });
    const fresh = nativeInstallState('cpu', dir);
    expect(fresh.state).toBe('not-set-up');
    expect(fresh.state !== 'ready' && fresh.reason).toMatch(/pnpm tfjs:setup/);
  });

  it('reports a setup killed before it wrote its record', () => {
    const state = nativeInstallState('cpu', fakePackage({ record: false }));
    expect(state.state).toBe('damaged');
    expect(state.state !== 'ready' && state.reason).toMatch(/did not finish.*--force/);
  });

  it('reports a record cut short as an unfinished setup, not a crash', () => {
    const dir = fakePackage();
    writeFileSync(join(dir, 'deps', SETUP_RECORD), '{"variant": "cpu", "tensorflowVer');
    const state = nativeInstallState('cpu', dir);
    expect(state.state).toBe('damaged');
    expect(state.state !== 'ready' && state.reason).toMatch(/did not finish.*--force/);
  });

  it('reports a truncated library with its size and the fix', () => {
    const dir = fakePackage();
    writeFileSync(join(dir, 'deps', 'lib', 'libtensorflow_cc.so.2'), Buffer.alloc(400));
    const state = nativeInstallState('cpu', dir);
    expect(state.state).toBe('damaged');
    expect(state.state !== 'ready' && state.reason).toMatch(
      /libtensorflow_cc\.so\.2 is 400 bytes, expected 1000; run pnpm tfjs:setup --force/,
    );
  });

  it('reports a missing binding and a binding this Node cannot load', () => {
    const missing = fakePackage();
    rmSync(join(missing, 'lib'), { recursive: true });
    expect(nativeInstallState('cpu', missing)).toMatchObject({ state: 'damaged' });
    const tooNew = Number(process.versions.napi) + 1;
    const stale = nativeInstallState('cpu', fakePackage({ record: { napiVersion: tooNew } }));
    expect(stale.state).toBe('damaged');
    expect(stale.state !== 'ready' && stale.reason).toMatch(new RegExp(`built for Node-API ${tooNew} `));
  });

  it('takes a binding built by another Node of the same Node-API (its ABI is stable)', () => {
    const other = nativeInstallState('cpu', fakePackage({ record: { nodeAbi: '115' } }));
    expect(other.state).toBe('ready');
  });
});

describe('native setup', () => {
  it('drops a wheel that does not unpack and says to run it again', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'pilotrl-cache-'));
    dirs.push(cacheDir);
    const wheelDir = join(cacheDir, 'wheels', 'tensorflow-cpu-2.15.1');
    mkdirSync(wheelDir, { recursive: true });
    writeFileSync(join(wheelDir, 'tensorflow_cpu-2.15.1-cp311-cp311-manylinux2014_x86_64.whl'), 'cut short');
    const packageDir = fakePackage({ binding: false });
    const result = await setupNativeBackend({ packageDir, cacheDir, force: true });
    if (result.ok) throw new Error('a truncated wheel must not set up');
    expect(result.reason).toMatch(/could not unpack .*run the setup again/);
    expect(nativeInstallState('cpu', packageDir).state).not.toBe('ready');
    expect(existsSync(wheelDir)).toBe(false); // the next run fetches it anew
  });
});
