// Python's `random.Random(seed)` (MT19937 seeded by `init_by_array`) and its `choice`, bit for bit:
// LMRL-Gym draws Wordle's hidden word with `random.Random(seed).choice(words)`, so an exact port
// of the game needs the same stream of numbers.

const N = 624;
const M = 397;
const UPPER_MASK = 0x80000000;
const LOWER_MASK = 0x7fffffff;
const MATRIX_A = 0x9908b0df;

export class PythonRandom {
  private readonly mt = new Uint32Array(N);
  private index = N + 1;

  /** The generator `random.Random(seed)` makes for a non-negative integer seed. */
  constructor(seed: number) {
    if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be a safe integer, got ${seed}`);
    this.initByArray(seedKey(Math.abs(seed)));
  }

  private initGenrand(seed: number): void {
    const mt = this.mt;
    mt[0] = seed >>> 0;
    for (let i = 1; i < N; i++) {
      const previous = mt[i - 1]!;
      mt[i] = (Math.imul(1812433253, previous ^ (previous >>> 30)) + i) >>> 0;
    }
    this.index = N;
  }

  private initByArray(key: readonly number[]): void {
    const mt = this.mt;
    this.initGenrand(19650218);
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      const previous = mt[i - 1]!;
      mt[i] = ((mt[i]! ^ Math.imul(previous ^ (previous >>> 30), 1664525)) + key[j]! + j) >>> 0;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1]!;
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const previous = mt[i - 1]!;
      mt[i] = ((mt[i]! ^ Math.imul(previous ^ (previous >>> 30), 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1]!;
        i = 1;
      }
    }
    mt[0] = 0x80000000;
  }

  /** The next 32-bit output of MT19937 (`genrand_uint32`). */
  nextUint32(): number {
    const mt = this.mt;
    if (this.index >= N) {
      for (let kk = 0; kk < N; kk++) {
        const y = (mt[kk]! & UPPER_MASK) | (mt[(kk + 1) % N]! & LOWER_MASK);
        mt[kk] = mt[(kk + M) % N]! ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
      }
      this.index = 0;
    }
    let y = mt[this.index++]!;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** `getrandbits(k)` for 1 <= k <= 32. */
  getrandbits(k: number): number {
    return this.nextUint32() >>> (32 - k);
  }

  /** `_randbelow(n)`: uniform in [0, n) by rejection over `n.bit_length()` bits. */
  randbelow(n: number): number {
    if (!Number.isInteger(n) || n < 1 || n > 0xffffffff) {
      throw new RangeError(`randbelow needs an integer in [1, 2^32), got ${n}`);
    }
    const bits = 32 - Math.clz32(n);
    let r = this.getrandbits(bits);
    while (r >= n) r = this.getrandbits(bits);
    return r;
  }

  /** `choice(items)`: `items[randbelow(len(items))]`. */
  choice<T>(items: readonly T[]): T {
    return items[this.randbelow(items.length)]!;
  }
}

/** The 32-bit words of a non-negative integer, least significant first; `[0]` for zero. */
function seedKey(seed: number): number[] {
  const key: number[] = [];
  for (let rest = seed; rest > 0; rest = Math.floor(rest / 2 ** 32)) key.push(rest % 2 ** 32);
  return key.length === 0 ? [0] : key;
}
