// `pilotrl eval` of a run's checkpoint samples as the run's own evaluations did: the same seed, so a
// sampled evaluation (eval.temperature above 0) of the same weights plays the same episodes.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluate, train } from '../library';
import { tinyCorridorConfig } from '../tiny-corridor.testing';

describe('pilotrl eval of a checkpoint', () => {
  it("samples with the run's own evaluation seed, and another config seed draws anew", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pilotrl-eval-seed-'));
    const config = tinyCorridorConfig(0, {
      agent: { paradigm: 'react', actionSpace: 'choice', prompt: 'compact', historyWindow: 1 },
      eval: { episodes: 16, every: 10, splits: ['valid_unseen'], temperature: 1 },
    });
    const out = join(dir, 'run');
    const { evals } = await train(config, { out });
    const own = evals.at(-1)!;
    const figures = (row: { success: unknown; meanSteps: number; formatErrorRate: number }) => ({
      success: row.success,
      meanSteps: row.meanSteps,
      formatErrorRate: row.formatErrorRate,
    });
    const [again] = await evaluate({ checkpoint: out });
    expect(figures(again!)).toEqual(figures(own));
    // The same weights sampled from other seeds: at least one of three draws other episodes.
    const draws = await Promise.all(
      [2, 3, 4].map(async (seed) => {
        const path = join(dir, `seed-${seed}.json`);
        writeFileSync(path, JSON.stringify({ ...config, seed }));
        const [row] = await evaluate({ checkpoint: out, config: path });
        return JSON.stringify(figures(row!));
      }),
    );
    expect(draws.some((draw) => draw !== JSON.stringify(figures(own)))).toBe(true);
  }, 120_000);
});
