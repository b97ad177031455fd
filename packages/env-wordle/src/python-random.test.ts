import { describe, expect, it } from 'vitest';
import { PythonRandom } from './python-random';

// Values printed by CPython's random.Random(seed).getrandbits(32) and .choice(range(n)).
const expected: [seed: number, words: number[], choice40: number, choice2315: number][] = [
  [0, [3626764237, 1654615998, 3255389356], 24, 1577],
  [1, [577090037, 2444712010, 3639700191], 8, 550],
  [42, [2746317213, 478163327, 107420369], 7, 456],
  [2 ** 32 + 5, [675479763, 2085189291, 1213270837], 10, 644],
  [2 ** 40 + 123, [4053542138, 1848172766, 16144985], 27, 1762],
];

describe('PythonRandom', () => {
  it.each(expected)('matches CPython for seed %d', (seed, words, choice40, choice2315) => {
    const rng = new PythonRandom(seed);
    expect([rng.getrandbits(32), rng.getrandbits(32), rng.getrandbits(32)]).toEqual(words);
    expect(new PythonRandom(seed).choice([...Array(40).keys()])).toBe(choice40);
    expect(new PythonRandom(seed).choice([...Array(2315).keys()])).toBe(choice2315);
  });

  it('regenerates its state after 624 outputs as CPython does', () => {
    const rng = new PythonRandom(7);
    let last = 0;
    for (let i = 0; i < 700; i++) last = rng.getrandbits(32);
    expect(last).toBe(72291700);
  });
});
