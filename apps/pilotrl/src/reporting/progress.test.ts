import { describe, expect, it } from 'vitest';
import { formatDuration, ProgressBar } from './progress';

describe('ProgressBar', () => {
  it('shows done/total, an ETA from the pace so far and live figures', () => {
    const lines: string[] = [];
    let clock = 0;
    const bar = new ProgressBar('follow', 10, { write: (t) => lines.push(t) > 0 }, () => clock);
    clock = 20_000;
    const line = bar.update(2, { success: '40.0%' });
    expect(line).toContain('follow [#####...................] 2/10');
    expect(line).toContain('ETA 1m20s');
    expect(line).toContain('success 40.0%');
    expect(lines).toEqual([`${line}\n`]);
  });

  it('says in words, after the figures, what the figures alone would hide', () => {
    const lines: string[] = [];
    const bar = new ProgressBar('joint', 4, { write: (t) => lines.push(t) > 0 }, () => 0);
    const note = 'no update: every group had zero reward variance (2 of 2 groups skipped)';
    const line = bar.update(1, { success: '0.0%' }, [note]);
    expect(line.endsWith(`success 0.0%  ${note}`)).toBe(true);
    expect(lines).toEqual([`${line}\n`]);
    expect(bar.update(2, { success: '0.0%' })).not.toContain('no update');
  });

  it('does not count work done before a resume in the pace', () => {
    let clock = 0;
    const bar = new ProgressBar('joint', 10, { write: () => true }, () => clock, 5);
    clock = 10_000;
    expect(bar.update(6)).toContain('ETA 40s');
  });

  it('formats durations', () => {
    expect(formatDuration(3725)).toBe('1h02m');
    expect(formatDuration(Number.NaN)).toBe('--');
  });
});
