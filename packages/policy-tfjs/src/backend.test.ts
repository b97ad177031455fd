// Backend selection: the automatic order, forced names, and the reasons a user is shown.
import { ConfigError } from '@pilotrl/core';
import { describe, expect, it } from 'vitest';
import { describeBackend, initBackend, parseBackendChoice } from './backend';
import { nativeInstallState, nativePackageDir } from './native/native-install';

describe('backend selection', () => {
  it('takes native TensorFlow when its install is whole, else wasm, and says why faster ones were skipped', async () => {
    const native = nativeInstallState('cpu', nativePackageDir('cpu'));
    const info = await initBackend({ backend: 'auto' });
    expect(info.skipped['tensorflow-gpu']).toMatch(/@tensorflow\/tfjs-node-gpu/);
    if (native.state === 'ready') {
      expect(info.choice).toBe('tensorflow');
      expect(info.tfBackend).toBe('tensorflow');
      expect(info.tensorflowVersion).toMatch(/^2\.\d+\.\d+/);
      expect(info.threads).toBeGreaterThanOrEqual(1);
      expect(describeBackend(info)).toMatch(
        /^tensorflow \(TensorFlow 2\.\d+\.\d+, \d+ threads?\); tensorflow-gpu skipped: /,
      );
    } else {
      expect(info.choice).toBe('wasm');
      expect(info.skipped.tensorflow).toBe(native.reason);
      expect(describeBackend(info)).toMatch(
        /^wasm \(1 thread\); tensorflow-gpu skipped: .*; tensorflow skipped: /,
      );
    }
  });

  it('starts a forced backend and names the kernels it overrides on wasm', async () => {
    const info = await initBackend({ backend: 'wasm' });
    expect(info).toMatchObject({ choice: 'wasm', tfBackend: 'wasm', skipped: {} });
    expect(info.overrides).toEqual(
      expect.arrayContaining([
        'BatchMatMul',
        '_FusedMatMul',
        'Sum',
        'Slice',
        'GatherV2',
        'UnsortedSegmentSum',
      ]),
    );
  });

  it('rejects unknown names and says where the name came from', () => {
    expect(() => initBackend({ backend: 'webgpu' as 'cpu' })).toThrow(ConfigError);
    expect(() => parseBackendChoice('tensorflow-cpu', '--backend')).toThrow(
      /unknown tfjs backend "tensorflow-cpu" \(from --backend\); use auto, tensorflow-gpu, tensorflow, wasm, cpu/,
    );
    expect(parseBackendChoice('auto', '--backend')).toBe('auto');
  });
});
