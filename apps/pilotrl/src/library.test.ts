import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { evaluate, resume, train } from './library';
import { resumableCurriculumYaml } from './tiny-corridor.testing';

describe('the curriculum as library calls', () => {
  it('trains a config object, evaluates its checkpoint, and resuming the finished run adds nothing', async () => {
    const config = parseYaml(
      resumableCurriculumYaml({ name: 'library', evalEvery: 10, checkpointEvery: 10 }),
    );
    const out = join(mkdtempSync(join(tmpdir(), 'pilotrl-library-')), 'run');
    const lines: string[] = [];
    const trained = await train(config, { out, log: (line) => lines.push(line) });
    expect(trained.runDir).toBe(out);
    expect(trained.evals.map((record) => [record.phase, record.split])).toEqual([
      ['sft', 'valid_unseen'],
      ['joint', 'valid_unseen'],
    ]);
    expect(lines).toContain(`pilotrl: library → ${out}`);

    const rows = await evaluate({ checkpoint: out, splits: ['valid_seen'], episodes: 3 });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ phase: 'eval', split: 'valid_seen', success: { total: 3 } });

    const resumeLines: string[] = [];
    const resumed = await resume(out, { log: (line) => resumeLines.push(line) });
    expect(resumeLines).toContain('the run finished at global iteration 4; nothing left to train');
    expect(resumed.evals).toEqual(trained.evals);
  }, 120_000);

  it('refuses a config object with the key that is wrong', async () => {
    await expect(train({ stages: [], sft: undefined, policy: { size: 'huge' } } as never)).rejects.toThrow(
      /^Invalid curriculum in the config passed to train:\n {2}policy\.size: /,
    );
  });
});
