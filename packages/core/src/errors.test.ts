import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ConfigError,
  InvalidArgumentError,
  ParseError,
  PilotRLError,
  parseOrThrow,
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
