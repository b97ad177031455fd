import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from './errors';
import { taskRange } from './task';

describe('taskRange', () => {
  it('lists the whole split, or a page of it, never past its end', () => {
    expect(taskRange('x', undefined, 10)).toEqual({ start: 0, end: 10 });
    expect(taskRange('x', { offset: 4 }, 10)).toEqual({ start: 4, end: 10 });
    expect(taskRange('x', { offset: 4, limit: 3 }, 10)).toEqual({ start: 4, end: 7 });
    expect(taskRange('x', { offset: 8, limit: 5 }, 10)).toEqual({ start: 8, end: 10 });
    expect(taskRange('x', { offset: 12 }, 10)).toEqual({ start: 12, end: 10 });
  });

  it('lists 100 tasks of an unbounded split unless told how many', () => {
    expect(taskRange('x', undefined, 'unbounded')).toEqual({ start: 0, end: 100 });
    expect(taskRange('x', { offset: 1000, limit: 2 }, 'unbounded')).toEqual({ start: 1000, end: 1002 });
  });

  it('refuses an offset or limit that is not a whole number of at least 0, naming the env', () => {
    for (const range of [{ offset: -1 }, { limit: -2 }, { offset: 1.5 }, { limit: Number.NaN }]) {
      expect(() => taskRange('maze', range, 10)).toThrow(InvalidArgumentError);
      expect(() => taskRange('maze', range, 10)).toThrow(/^maze: a task range's offset and limit/);
    }
  });
});
