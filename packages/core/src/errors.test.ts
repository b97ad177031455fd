import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ConfigError,
  describeIssues,
  InvalidArgumentError,
  ParseError,
  PilotRLError,
  parseOrThrow,
  printable,
  TimeoutError,
} from './errors';

describe('error classes', () => {
  it('carry stable names and recognise their own kind', () => {
    const error = new TimeoutError('env step took longer than 5000 ms');
    expect(error.name).toBe('TimeoutError');
    expect(TimeoutError.isInstance(error)).toBe(true);
    expect(PilotRLError.isInstance(error)).toBe(true);
    expect(ConfigError.isInstance(error)).toBe(false);
    expect(PilotRLError.isInstance(new Error('plain'))).toBe(false);
    expect(PilotRLError.isInstance('TimeoutError')).toBe(false);
  });

  it('recognise errors from another copy of the package by name and marker', () => {
    const foreign = Object.assign(new Error('x'), {
      name: 'ConfigError',
      [Symbol.for('@pilotrl/core/error')]: true,
    });
    expect(ConfigError.isInstance(foreign)).toBe(true);
  });

  it('ParseError names the source and line', () => {
    const error = new ParseError('game.tw-pddl', 12, 'unbalanced parenthesis');
    expect(error.message).toBe('game.tw-pddl:12: unbalanced parenthesis');
    expect(error.line).toBe(12);
  });
});

describe('parseOrThrow', () => {
  it('returns parsed data or lists every offending path', () => {
    const schema = z.object({ a: z.number(), b: z.object({ c: z.string() }) });
    expect(parseOrThrow(schema, { a: 1, b: { c: 'x' } }, 'thing')).toEqual({ a: 1, b: { c: 'x' } });
    expect(() => parseOrThrow(schema, { a: 'no', b: {} }, 'thing')).toThrow(
      /Invalid thing:\n {2}a: .*\n {2}b\.c: /,
    );
    try {
      parseOrThrow(schema, null, 'thing');
    } catch (error) {
      expect(InvalidArgumentError.isInstance(error)).toBe(true);
    }
  });
});

describe('printable', () => {
  it('escapes control characters and line breaks, and cuts long text with a count', () => {
    expect(printable('a\u0000b\nc\u001b[2J\u009b\u2028 é😀')).toBe(
      'a\\u0000b\\u000ac\\u001b[2J\\u009b\\u2028 é😀',
    );
    expect(printable('x'.repeat(300), 10)).toBe('xxxxxxxxxx... (290 more characters)');
    expect(printable('ab😀', 3)).toBe('ab... (2 more characters)');
  });

  it('lists at most 20 issues with printable paths, and counts the rest', () => {
    const issues = Array.from({ length: 25 }, (_, i) => ({ path: ['keys', `k\u0007${i}`], message: 'bad' }));
    const lines = describeIssues(issues);
    expect(lines).toHaveLength(21);
    expect(lines[0]).toBe('keys.k\\u00070: bad');
    expect(lines[20]).toBe('... and 5 more problems');
    expect(describeIssues([{ path: [], message: 'no' }])).toEqual(['(root): no']);
  });
});
