import { describe, expect, it } from 'vitest';
import {
  createActionMatcher,
  exactRule,
  normalizeAction,
  normalizedRule,
  uniquePrefixRule,
} from './action-matcher';

const admissible = ['go to fridge 1', 'go to countertop 1', 'go to countertop 2', 'open fridge 1', 'look'];

describe('action matching', () => {
  const matcher = createActionMatcher();

  it('prefers the exact command', () => {
    expect(matcher.match('open fridge 1', admissible)).toEqual({ command: 'open fridge 1', rule: 'exact' });
  });

  it('normalises case, spacing, quotes and a final period', () => {
    expect(normalizeAction('  "Open   Fridge 1." ')).toBe('open fridge 1');
    expect(matcher.match("'Open  FRIDGE 1.'", admissible)).toEqual({
      command: 'open fridge 1',
      rule: 'normalized',
    });
  });

  it('sends unmatched text as written, for the env to reject', () => {
    expect(matcher.match('go to fridge', admissible)).toEqual({ command: 'go to fridge', rule: 'unmatched' });
  });

  it('is a chain the user can extend', () => {
    const lenient = createActionMatcher([exactRule, normalizedRule, uniquePrefixRule]);
    expect(lenient.match('go to fridge', admissible)).toEqual({
      command: 'go to fridge 1',
      rule: 'unique_prefix',
    });
    // Two countertops: no guess.
    expect(lenient.match('go to countertop', admissible).rule).toBe('unmatched');
    const custom = createActionMatcher([{ name: 'first', match: (_action, list) => list[0] ?? null }]);
    expect(custom.match('anything', admissible)).toEqual({ command: 'go to fridge 1', rule: 'first' });
  });

  it('never picks between two commands that normalise alike', () => {
    expect(matcher.match('LOOK', ['Look', 'look.']).rule).toBe('unmatched');
  });
});
