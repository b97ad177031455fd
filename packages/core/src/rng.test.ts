import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from './errors';
import { createRng, hashString, rngFromState } from './rng';

describe('createRng', () => {
  it('gives the same stream for a seed on every platform (golden values)', () => {
    const rng = createRng(42);
    expect([rng.uint32(), rng.uint32(), rng.uint32(), rng.int(10), rng.float()]).toEqual([
      2837322924, 544945897, 479756282, 2, 0.07910565007477999,
    ]);
    const named = createRng('alfworld');
    expect([named.uint32(), named.uint32()]).toEqual([679300608, 633427860]);
  });

  it('keeps seeds above 2^32 distinct from their low bits', () => {
    expect(createRng(2 ** 40 + 5).uint32()).not.toBe(createRng(5).uint32());
  });

  it('draws integers uniformly within bounds', () => {
    const rng = createRng(7);
    const counts = [0, 0, 0];
    for (let i = 0; i < 3000; i++) counts[rng.int(3)]!++;
    for (const count of counts) expect(count).toBeGreaterThan(900);
    for (let i = 0; i < 100; i++) {
      const value = rng.intBetween(-2, 2);
      expect(value).toBeGreaterThanOrEqual(-2);
      expect(value).toBeLessThanOrEqual(2);
    }
  });

  it('restores a saved state and continues the same stream', () => {
    const rng = createRng(3);
    rng.uint32();
    const saved = rng.state();
    const expected = [rng.uint32(), rng.uint32()];
    const restored = rngFromState(saved);
    expect([restored.uint32(), restored.uint32()]).toEqual(expected);
  });

  it('forks independent streams without advancing the parent', () => {
    const a = createRng(9);
    const b = createRng(9);
    const fork = a.fork('envs');
    expect(a.uint32()).toBe(b.uint32());
    expect(fork.uint32()).toBe(createRng(9).fork('envs').uint32());
    expect(createRng(9).fork('envs').uint32()).not.toBe(createRng(9).fork('policy').uint32());
  });

  it('shuffles into a permutation and picks by weight', () => {
    const rng = createRng(1);
    const shuffled = rng.shuffle([1, 2, 3, 4, 5]);
    expect([...shuffled].sort()).toEqual([1, 2, 3, 4, 5]);
    for (let i = 0; i < 50; i++) expect(rng.weightedIndex([0, 1, 0])).toBe(1);
  });

  it('rejects bad seeds and bounds with InvalidArgumentError', () => {
    expect(() => createRng(1.5)).toThrow(InvalidArgumentError);
    expect(() => createRng(0).int(0)).toThrow(/integer bound/);
    expect(() => createRng(0).pick([])).toThrow(/non-empty/);
    expect(() => createRng(0).weightedIndex([0, 0])).toThrow(/positive sum/);
    expect(() => rngFromState([1, 2, 3] as never)).toThrow(/four unsigned/);
  });

  it('hashes strings stably', () => {
    expect(hashString('')).toBe(0x811c9dc5);
    expect(hashString('a')).toBe(0xe40c292c);
  });
});
