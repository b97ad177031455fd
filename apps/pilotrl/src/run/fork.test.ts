import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheckpointError, ConfigError } from '@pilotrl/core';
import { describe, expect, it } from 'vitest';
import { train } from '../commands/train';
import {
  eventsWithoutMeasuredCosts,
  quietIo,
  tinyCorridorConfig,
  withoutMeasuredCosts,
} from '../tiny-corridor.testing';
import { forkDifferences, forkRun } from './fork';
import { readManifest, runPaths } from './run-dir';

const records = (path: string) =>
  withoutMeasuredCosts(
    readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line)),
  );
const metrics = (runDir: string) => records(runPaths(runDir).metrics);
const evals = (runDir: string) => records(runPaths(runDir).evals);

describe('forkRun', () => {
  it('continues a finished warm start into the run that would have trained it itself', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pilotrl-fork-'));
    const warm = join(dir, 'warm');
    const forked = join(dir, 'forked');
    const whole = join(dir, 'whole');
    await train({ config: tinyCorridorConfig(0), out: warm, report: false }, quietIo, ['train']);
    const config = { ...tinyCorridorConfig(1), name: 'tiny-0' };
    forkRun(warm, forked, config, ['pilotrl', 'test']);
    expect(readManifest(forked).forkedFrom).toMatchObject({ run: warm, phases: 1 });
    await train({ resume: forked, report: false }, quietIo, ['train']);
    await train({ config, out: whole, report: false }, quietIo, ['train']);
    expect(metrics(forked)).toEqual(metrics(whole));
    expect(evals(forked)).toEqual(evals(whole));
    expect(evals(forked).slice(0, 1)).toEqual(evals(warm));
    // The TensorBoard file too: the warm start's part copied, the rest appended.
    expect(eventsWithoutMeasuredCosts(forked)).toEqual(eventsWithoutMeasuredCosts(whole));
    expect(eventsWithoutMeasuredCosts(whole).map((event) => event.step)).toEqual([0, 1, 2, 2, 3, 4, 4]);
    // The target is a run with checkpoints now: a second fork into it is refused.
    expect(() => forkRun(warm, forked, config, [])).toThrow(CheckpointError);
    // A fork cut short before its checkpoint was copied is started again.
    const cut = join(dir, 'cut');
    forkRun(warm, cut, config, []);
    rmSync(runPaths(cut).checkpoints, { recursive: true });
    writeFileSync(runPaths(cut).metrics, 'half a line');
    forkRun(warm, cut, config, []);
    await train({ resume: cut, report: false }, quietIo, ['train']);
    expect(metrics(cut)).toEqual(metrics(whole));
    expect(eventsWithoutMeasuredCosts(cut)).toEqual(eventsWithoutMeasuredCosts(whole));
  }, 120_000);

  it('refuses a config that differs on the shared phases, naming the keys, and an unfinished source', async () => {
    const source = tinyCorridorConfig(0);
    expect(forkDifferences(source, tinyCorridorConfig(2))).toEqual([]);
    expect(
      forkDifferences(source, tinyCorridorConfig(1, { sft: { ...source.sft!, steps: 3 }, seed: 2 })),
    ).toEqual(['seed', 'sft.steps']);
    expect(forkDifferences(tinyCorridorConfig(1), tinyCorridorConfig(0))).toEqual(['stages']);

    const dir = mkdtempSync(join(tmpdir(), 'pilotrl-fork-'));
    const warm = join(dir, 'warm');
    await train({ config: tinyCorridorConfig(0), out: warm, report: false }, quietIo, ['train']);
    expect(() => forkRun(warm, join(dir, 'other-seed'), { ...tinyCorridorConfig(1), seed: 7 }, [])).toThrow(
      ConfigError,
    );
    expect(() => forkRun(warm, join(dir, 'other-seed'), { ...tinyCorridorConfig(1), seed: 7 }, [])).toThrow(
      /\(seed\)/,
    );
    // A run stopped before the end of its phases is no warm start.
    const longer = join(dir, 'longer');
    forkRun(warm, longer, tinyCorridorConfig(1), []);
    expect(() => forkRun(longer, join(dir, 'third'), tinyCorridorConfig(2), [])).toThrow(/has not finished/);
  }, 120_000);
});
