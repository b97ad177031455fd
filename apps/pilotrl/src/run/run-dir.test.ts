import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/curriculum-config';
import { oneJointStage } from '../tiny-corridor.testing';
import { createRunDir, packageVersions, readRunConfig } from './run-dir';

describe('run directory', () => {
  it('records the versions of the app, its packages and their dependencies', () => {
    const versions = packageVersions(['@pilotrl/core', '@tensorflow/tfjs-core', 'no-such-package']);
    expect(versions.pilotrl).toBe('0.1.0');
    expect(versions['@pilotrl/core']).toBe('0.1.0');
    expect(versions['@tensorflow/tfjs-core']).toMatch(/^\d+\.\d+\.\d+/);
    expect(versions['no-such-package']).toBe('not installed');
  });

  it('holds the resolved config and refuses to be created twice', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pilotrl-rundir-'));
    const config = parseConfig({
      stages: [oneJointStage],
    });
    const manifest = {
      name: 'x',
      createdAt: 'now',
      command: [],
      seeds: { master: 1 },
      packages: {},
      dataHashes: {},
      platform: { node: 'v20', os: 'linux', arch: 'x64' },
    };
    createRunDir(dir, config, manifest);
    expect(readRunConfig(dir)).toEqual(config);
    expect(readFileSync(join(dir, 'config.yaml'), 'utf8')).toContain('clipLow: 0.2');
    expect(() => createRunDir(dir, config, manifest)).toThrow('already holds a run; pass --resume');
  });
});
