// A seeded random generator (xoshiro128**, seeded by splitmix32) built only on 32-bit integer
// arithmetic, so a seed gives the same stream on every platform and JS engine.
import { InvalidArgumentError } from './errors';

export interface Rng {
  /** Next unsigned 32-bit integer. */
  uint32(): number;
  /** Uniform float in [0, 1), 32 bits of resolution. */
  float(): number;
  /** Uniform integer in [0, maxExclusive). */
  int(maxExclusive: number): number;
  /** Uniform integer in [min, maxInclusive]. */
  intBetween(min: number, maxInclusive: number): number;
  /** A standard normal sample (Box-Muller). */
  normal(): number;
  /** One element chosen uniformly. */
  pick<T>(items: readonly T[]): T;
  /** A shuffled copy (Fisher-Yates). */
  shuffle<T>(items: readonly T[]): T[];
  /** Index drawn with probability proportional to `weights` (non-negative, not all zero). */
  weightedIndex(weights: readonly number[]): number;
  /** An independent generator derived from this one's seed and `label`; does not advance this one. */
  fork(label: string | number): Rng;
  /** The full internal state, to save with a checkpoint and restore with `rngFromState`. */
  state(): RngState;
}

export type RngState = readonly [number, number, number, number];

/** FNV-1a over the UTF-16 code units of `text`: a stable 32-bit hash for labels and ids. */
export function hashString(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

function splitmix32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
}

function seedToUint32(seed: number | string): number {
  if (typeof seed === 'string') return hashString(seed);
  if (!Number.isSafeInteger(seed)) {
    throw new InvalidArgumentError(`RNG seed must be a safe integer or a string, got ${seed}`);
  }
  // Fold the high bits in so that seeds above 2^32 stay distinct.
  const high = Math.floor(seed / 0x100000000);
  return (seed ^ Math.imul(high, 0x9e3779b1)) >>> 0;
}

/** Creates a generator from an integer or string seed. */
export function createRng(seed: number | string): Rng {
  const next = splitmix32(seedToUint32(seed));
  const state: [number, number, number, number] = [next(), next(), next(), next()];
  if ((state[0] | state[1] | state[2] | state[3]) === 0) state[0] = 1;
  return makeRng(state, seedToUint32(seed));
}

/** Restores a generator saved with `rng.state()`. */
export function rngFromState(saved: RngState, forkBase = 0): Rng {
  if (saved.length !== 4 || saved.some((word) => !Number.isInteger(word) || word < 0 || word > 0xffffffff)) {
    throw new InvalidArgumentError('RNG state must be four unsigned 32-bit integers');
  }
  return makeRng([saved[0], saved[1], saved[2], saved[3]], forkBase);
}

function makeRng(s: [number, number, number, number], forkBase: number): Rng {
  const rotl = (x: number, k: number) => (x << k) | (x >>> (32 - k));
  const uint32 = (): number => {
    const result = Math.imul(rotl(Math.imul(s[1], 5), 7), 9) >>> 0;
    const t = s[1] << 9;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 11);
    return result;
  };
  const float = () => uint32() / 0x100000000;
  const int = (maxExclusive: number): number => {
    if (!Number.isInteger(maxExclusive) || maxExclusive <= 0 || maxExclusive > 0x100000000) {
      throw new InvalidArgumentError(`rng.int needs an integer bound in [1, 2^32], got ${maxExclusive}`);
    }
    // Rejection sampling keeps the draw unbiased.
    const limit = 0x100000000 - (0x100000000 % maxExclusive);
    for (;;) {
      const value = uint32();
      if (value < limit) return value % maxExclusive;
    }
  };
  const rng: Rng = {
    uint32,
    float,
    int,
    intBetween: (min, maxInclusive) => min + int(maxInclusive - min + 1),
    normal: () => {
      const u1 = 1 - float();
      const u2 = float();
      return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    },
    pick: (items) => {
      if (items.length === 0) throw new InvalidArgumentError('rng.pick needs a non-empty list');
      return items[int(items.length)]!;
    },
    shuffle: (items) => {
      const copy = [...items];
      for (let i = copy.length - 1; i > 0; i--) {
        const j = int(i + 1);
        [copy[i], copy[j]] = [copy[j]!, copy[i]!];
      }
      return copy;
    },
    weightedIndex: (weights) => {
      const total = weights.reduce((sum, w) => sum + w, 0);
      if (!(total > 0) || weights.some((w) => !(w >= 0))) {
        throw new InvalidArgumentError('rng.weightedIndex needs non-negative weights with a positive sum');
      }
      let target = float() * total;
      for (let i = 0; i < weights.length; i++) {
        target -= weights[i]!;
        if (target < 0) return i;
      }
      return weights.length - 1;
    },
    fork: (label) => createRng(hashString(`${forkBase}/${label}`)),
    state: () => [s[0] >>> 0, s[1] >>> 0, s[2] >>> 0, s[3] >>> 0],
  };
  return rng;
}
