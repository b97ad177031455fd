import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { wilsonInterval } from '@pilotrl/core';
import { describe, expect, it } from 'vitest';
import {
  type CurvePoint,
  computeCurveSection,
  curveFindings,
  curveRows,
  writeResultsSection,
} from './compute-curve';

const point = (
  seed: number,
  phaseIndex: number,
  search: string,
  successes: number,
  evalCpu: number,
): CurvePoint => ({
  seed,
  phase: phaseIndex === 0 ? 'sft' : 'joint',
  phaseIndex,
  step: 10 * (phaseIndex + 1),
  search,
  trainCpuSeconds: 100 * (phaseIndex + 1) + seed,
  evalCpuSeconds: evalCpu,
  successes,
  episodes: 200,
  generatedTokens: 2000 * (search === 'greedy' ? 1 : 4),
  envSteps: 3000,
});

describe('the compute curve', () => {
  const points = [
    point(1, 0, 'greedy', 40, 20),
    point(2, 0, 'greedy', 50, 22),
    point(3, 0, 'greedy', 60, 24),
    point(1, 1, 'greedy', 60, 30),
    point(2, 1, 'greedy', 70, 30),
    point(3, 1, 'greedy', 80, 30),
    point(1, 0, 'best-of-4 (judge)', 70, 80),
    point(2, 0, 'best-of-4 (judge)', 70, 90),
    point(3, 0, 'best-of-4 (judge)', 70, 100),
  ];

  it('summarises each checkpoint and search over seeds, with compute in CPU seconds', () => {
    const rows = curveRows(points);
    expect(rows.map((r) => [r.phaseIndex, r.search])).toEqual([
      [0, 'greedy'],
      [0, 'best-of-4 (judge)'],
      [1, 'greedy'],
    ]);
    const [sft, search] = rows;
    expect(sft!.seeds).toBe(3);
    expect(sft!.success.mean).toBeCloseTo(0.25);
    // t(0.975, 2) = 4.303; the rates' sample sd is 0.05.
    expect(sft!.success.high - sft!.success.mean).toBeCloseTo((4.303 * 0.05) / Math.sqrt(3), 3);
    expect(sft!.pooled).toMatchObject({ successes: 150, episodes: 600 });
    expect(sft!.pooled.low).toBeCloseTo(wilsonInterval(150, 600).low);
    expect(sft!.trainCpuSeconds).toBeCloseTo(102);
    expect(sft!.evalCpuSecondsPerEpisode).toBeCloseTo(22 / 200);
    expect(sft!.totalCpuSeconds).toBeCloseTo(124);
    expect(search!.totalCpuSeconds).toBeCloseTo(192);
    expect(search!.generatedTokensPerEpisode).toBeCloseTo(40);
    expect(search!.envStepsPerEpisode).toBeCloseTo(15);
    // Equal rates over seeds: a zero-width interval, not NaN.
    expect(search!.success.mean).toBeCloseTo(0.35);
    expect(search!.success.low).toBeCloseTo(0.35);
    expect(search!.success.high).toBeCloseTo(0.35);
  });

  it('writes a table row per checkpoint and search, the plot and the commands', () => {
    const { markdown, png } = computeCurveSection(points, {
      split: 'valid_unseen',
      scale: 'a test curriculum',
      commands: ['pnpm pilotrl compute-curve --config quick'],
      plotPath: 'results/compute-curve.png',
    });
    expect(markdown).toContain('## Train-time against test-time compute on valid_unseen');
    expect(markdown).toContain('3 seed(s) (1, 2, 3); a test curriculum.');
    expect(markdown).toContain('| after SFT | best-of-4 (judge) | 35.0% [35.0%, 35.0%] |');
    expect(markdown).toContain('| after joint (phase 2) | greedy | 35.0% [');
    expect(markdown).toContain('![success against compute](results/compute-curve.png)');
    expect(markdown).toContain('- `pnpm pilotrl compute-curve --config quick`');
    expect(png.subarray(1, 4).toString()).toBe('PNG');
  });
});

describe('curveFindings', () => {
  it('compares each search with greedy play of the same checkpoint and each phase with the first, seed by seed', () => {
    const at = (seed: number, phaseIndex: number, search: string, successes: number, evalCpu = 20) =>
      point(seed, phaseIndex, search, successes, evalCpu);
    const findings = curveFindings([
      at(1, 0, 'greedy', 40),
      at(2, 0, 'greedy', 50),
      at(3, 0, 'greedy', 60),
      at(1, 1, 'greedy', 42),
      at(2, 1, 'greedy', 48),
      at(3, 1, 'greedy', 61),
      // +10, +12, +8 successes over 200: +5.0 points, a t-interval of ±5.0 (sd 1 point) around it.
      at(1, 1, 'best-of-4 (judge)', 52, 50),
      at(2, 1, 'best-of-4 (judge)', 60, 50),
      at(3, 1, 'best-of-4 (judge)', 69, 50),
    ]);
    expect(findings).toHaveLength(2);
    // Seeds that all moved by the same amount give a t-interval of no width: said, not called a gain.
    const same = curveFindings([
      at(1, 0, 'greedy', 40),
      at(2, 0, 'greedy', 50),
      at(1, 0, 'x', 44),
      at(2, 0, 'x', 54),
    ]);
    expect(same[0]).toContain('+2.0 points [+2.0, +2.0] over 2 seed(s)');
    expect(same[0]).toContain('every seed moved by the same amount');
    expect(findings[0]).toMatch(
      /^- after joint \(phase 2\) against after SFT \(more training, greedy\): \+0\.2 points \[-[\d.]+, \+[\d.]+\] over 3 seed\(s\), for \+100 CPU s \(the interval includes 0: not shown either way\)$/,
    );
    expect(findings[1]).toBe(
      '- best-of-4 (judge) after joint (phase 2) against greedy from the same checkpoint: +5.0 points [+0.0, +10.0] over 3 seed(s), for +30 CPU s (the interval excludes 0: a gain)'.replace(
        '[+0.0, +10.0]',
        `[+${(5 - (4.303 * 1) / Math.sqrt(3)).toFixed(1)}, +${(5 + (4.303 * 1) / Math.sqrt(3)).toFixed(1)}]`,
      ),
    );
  });
});

describe('writeResultsSection', () => {
  it('replaces its own section, appends a new one and keeps the rest of the page', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'pilotrl-results-')), 'RESULTS.md');
    writeResultsSection(path, 'reproduction', '# Results\n\nfirst');
    writeResultsSection(path, 'compute-curve', '## Curve\n\none');
    writeResultsSection(path, 'reproduction', '# Results\n\nsecond');
    writeResultsSection(path, 'compute-curve', '## Curve\n\ntwo');
    expect(readFileSync(path, 'utf8')).toBe(
      [
        '<!-- section:reproduction -->',
        '# Results',
        '',
        'second',
        '<!-- /section:reproduction -->',
        '',
        '<!-- section:compute-curve -->',
        '## Curve',
        '',
        'two',
        '<!-- /section:compute-curve -->',
        '',
      ].join('\n'),
    );
    // A page written before sections existed is kept, the new section after it.
    writeFileSync(path, '# Old page\n');
    writeResultsSection(path, 'compute-curve', 'curve');
    expect(readFileSync(path, 'utf8')).toBe(
      '# Old page\n\n<!-- section:compute-curve -->\ncurve\n<!-- /section:compute-curve -->\n',
    );
  });
});
