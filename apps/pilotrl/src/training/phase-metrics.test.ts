import { describe, expect, it } from 'vitest';
import { noUpdateNote } from './phase-metrics';

describe('noUpdateNote', () => {
  it('says that no update happened because every group had zero reward variance', () => {
    const skipped = { 'charts/updated': 0, 'charts/groups': 4, 'charts/zero_variance_groups': 4 };
    expect(noUpdateNote(skipped)).toBe(
      'no update: every group had zero reward variance (4 of 4 groups skipped)',
    );
  });

  it('says so too when the groups left generated nothing to train on', () => {
    const empty = { 'charts/updated': 0, 'charts/groups': 3, 'charts/zero_variance_groups': 0 };
    expect(noUpdateNote(empty)).toBe(
      'no update: no generated tokens to train on (0 of 3 groups had zero reward variance)',
    );
  });

  it('is silent after an update, and in phases without one', () => {
    expect(noUpdateNote({ 'charts/updated': 1, 'charts/groups': 4, 'charts/zero_variance_groups': 3 })).toBe(
      undefined,
    );
    expect(noUpdateNote({ 'losses/sft_loss': 1.5 })).toBe(undefined);
  });
});
