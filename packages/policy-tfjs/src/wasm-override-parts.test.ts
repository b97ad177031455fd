// The array work of the wasm kernel overrides on its own, against the plain definitions: a slice,
// column sums over leading axes, a row gather and a segment sum.
import { describe, expect, it } from 'vitest';
import { copySlice, gatherRows, segmentSum, sumRows } from './wasm-overrides';

const iota = (n: number) => Float32Array.from({ length: n }, (_, i) => i + 1);

/** The slice by its definition: every index of the output, mapped back into the input. */
function naiveSlice(src: Float32Array, shape: number[], start: number[], sizes: number[]): number[] {
  const out: number[] = [];
  const total = sizes.reduce((a, b) => a * b, 1);
  for (let flat = 0; flat < total; flat++) {
    let rest = flat;
    let from = 0;
    let stride = 1;
    for (let d = shape.length - 1; d >= 0; d--) {
      const index = rest % sizes[d]!;
      rest = Math.floor(rest / sizes[d]!);
      from += (start[d]! + index) * stride;
      stride *= shape[d]!;
    }
    out.push(src[from]!);
  }
  return out;
}

describe('copySlice', () => {
  it('copies what the slice is by definition, whole trailing dimensions or not', () => {
    const shape = [3, 4, 5];
    const src = iota(60);
    const cases: [number[], number[]][] = [
      [
        [0, 0, 0],
        [3, 4, 5],
      ],
      [
        [1, 0, 0],
        [2, 4, 5],
      ],
      [
        [0, 1, 2],
        [3, 2, 3],
      ],
      [
        [2, 3, 4],
        [1, 1, 1],
      ],
      [
        [0, 2, 0],
        [3, 1, 5],
      ],
    ];
    for (const [start, sizes] of cases) {
      const dst = new Float32Array(sizes.reduce((a, b) => a * b, 1));
      copySlice(src, shape, start, sizes, dst);
      expect([...dst]).toEqual(naiveSlice(src, shape, start, sizes));
    }
  });

  it('copies a scalar', () => {
    const dst = new Float32Array(1);
    copySlice(Float32Array.of(7), [], [], [], dst);
    expect([...dst]).toEqual([7]);
  });
});

describe('sumRows', () => {
  it('sums the columns of the rows', () => {
    expect([...sumRows(iota(6), 2, 3)]).toEqual([5, 7, 9]);
    expect([...sumRows(iota(6), 3, 2)]).toEqual([9, 12]);
  });
});

describe('gatherRows', () => {
  it('copies the rows the ids name, in their order, and refuses an id outside the rows', () => {
    const dst = new Float32Array(6);
    gatherRows(iota(6), 3, 2, Int32Array.of(2, 0, 2), 3, dst);
    expect([...dst]).toEqual([5, 6, 1, 2, 5, 6]);
    expect(() => gatherRows(iota(6), 3, 2, Int32Array.of(3), 1, new Float32Array(2))).toThrow(RangeError);
  });
});

describe('segmentSum', () => {
  it('adds each row to its segment and drops ids outside the segments', () => {
    const dst = Float32Array.of(9, 9, 9, 9);
    segmentSum(iota(8), Int32Array.of(1, 0, 1, 5), 4, 2, 2, dst);
    expect([...dst]).toEqual([3, 4, 6, 8]);
  });
});
