// Kernel overrides for @tensorflow/tfjs-backend-wasm 4.22.0 that make transformer training fast.
//
// The wasm BatchMatMul/_FusedMatMul use XNNPACK (SIMD) only when neither operand is transposed and
// both have batch 1; every matmul gradient (transposed operand), attention (batched) and 3-D x 2-D
// product otherwise falls to a scalar loop 10-20x slower. Identity/Cast copy buffers the engine
// clones for backprop, Sum over leading axes transposes first, Slice copies its whole input, and
// UnsortedSegmentSum (the gradient of gather) is missing. The overrides below re-register these
// kernels; every one calls a stock kernel or copies float32 data verbatim, so results match stock
// to float32 rounding (checked in wasm-overrides.test.ts). They use wasm-backend internals, which
// is why the tfjs version is pinned to 4.22.0.
import * as tf from '@tensorflow/tfjs-core';

type KernelConfig = tf.KernelConfig;
type TensorInfo = tf.TensorInfo;
type DataId = TensorInfo['dataId'];
type KernelArgs = Parameters<tf.KernelFunc>[0];

/** The parts of the wasm backend the overrides rely on (present in tfjs-backend-wasm 4.22.0). */
interface WasmBackendInternals {
  makeOutput(shape: number[], dtype: tf.DataType): TensorInfo;
  typedArrayFromHeap(info: TensorInfo): Float32Array | Int32Array | Uint8Array;
  disposeData(dataId: DataId): boolean;
  incRef(dataId: DataId): void;
}

type KernelRun = (args: KernelArgs) => TensorInfo;

export interface WasmOverrideOptions {
  /** Route transposed and batched matmuls to XNNPACK (default true). */
  matmul?: boolean;
  /** Share buffers in Identity and same-dtype Cast instead of copying (default true). */
  identity?: boolean;
  /** Sum over leading axes with a column loop (default true). */
  sum?: boolean;
  /** Copy only the requested runs in Slice (default true). */
  slice?: boolean;
  /** Axis-0 GatherV2 as row copies (default true). */
  gather?: boolean;
  /** Per-batch work (2·M·N·K) under which batched matmuls keep the stock kernel; default 65,536. */
  splitMinFlops?: number;
}

export interface InstalledOverrides {
  /** Kernel names that were replaced or added. */
  readonly kernels: readonly string[];
  /** Re-registers the stock kernels (and removes added ones). */
  uninstall(): void;
}

const BACKEND = 'wasm';
const product = (values: readonly number[]) => values.reduce((a, b) => a * b, 1);
const swapLast2 = (rank: number) => {
  const perm = [...Array(rank).keys()];
  [perm[rank - 2], perm[rank - 1]] = [perm[rank - 1]!, perm[rank - 2]!];
  return perm;
};

function requireKernel(name: string): KernelConfig {
  const config = tf.getKernel(name, BACKEND);
  if (config === undefined) {
    throw new Error(`wasm kernel ${name} is not registered: import @tensorflow/tfjs-backend-wasm first`);
  }
  return config;
}

/** Installs the overrides on the wasm backend. Idempotence is the caller's job (see backend.ts). */
export function installWasmOverrides(options: WasmOverrideOptions = {}): InstalledOverrides {
  const splitMinFlops = options.splitMinFlops ?? 2 * 32 * 32 * 32;
  const run = (name: string): KernelRun => requireKernel(name).kernelFunc as KernelRun;
  const replaced = new Map<string, KernelConfig | undefined>();

  const replace = (name: string, kernelFunc: KernelOverride) => {
    const stock = tf.getKernel(name, BACKEND);
    replaced.set(name, stock);
    if (stock !== undefined) tf.unregisterKernel(name, BACKEND);
    const stockRun = stock?.kernelFunc as KernelRun;
    tf.registerKernel({
      kernelName: name,
      backendName: BACKEND,
      ...(stock?.setupFunc === undefined ? {} : { setupFunc: stock.setupFunc }),
      ...(stock?.disposeFunc === undefined ? {} : { disposeFunc: stock.disposeFunc }),
      kernelFunc: ((args: KernelArgs) => kernelFunc(args, stockRun)) as tf.KernelFunc,
    });
  };

  const matmul = matmulOverride(run('Transpose'), run('Reshape'), splitMinFlops);
  if (options.matmul !== false) {
    replace('BatchMatMul', matmul);
    replace('_FusedMatMul', matmul);
  }
  if (options.identity !== false) {
    replace('Identity', identityOverride);
    replace('Cast', castOverride);
  }
  if (options.sum !== false) replace('Sum', sumOverride);
  if (options.slice !== false) replace('Slice', sliceOverride);
  if (options.gather !== false) replace('GatherV2', gatherOverride);
  if (tf.getKernel('UnsortedSegmentSum', BACKEND) === undefined) {
    replace('UnsortedSegmentSum', unsortedSegmentSumOverride);
  }

  return {
    kernels: [...replaced.keys()],
    uninstall() {
      for (const [name, stock] of replaced) {
        tf.unregisterKernel(name, BACKEND);
        if (stock !== undefined) tf.registerKernel(stock);
      }
      replaced.clear();
    },
  };
}

/** A kernel that may hand its work to the stock kernel it replaces (undefined for an added one). */
type KernelOverride = (args: KernelArgs, stock: KernelRun) => TensorInfo;

/**
 * BatchMatMul and _FusedMatMul on XNNPACK: operands un-transposed first, a's batch folded into rows
 * when b has batch 1, and batched products of at least `splitMinFlops` run one slice at a time.
 */
function matmulOverride(transposeK: KernelRun, reshapeK: KernelRun, splitMinFlops: number): KernelOverride {
  return (args, stock) => {
    const backend = args.backend as WasmBackendInternals;
    const attrs = (args.attrs ?? {}) as { transposeA?: boolean; transposeB?: boolean };
    const inputs = args.inputs as Record<string, TensorInfo>;
    let a = inputs.a!;
    let b = inputs.b!;
    const transA = attrs.transposeA === true;
    const transB = attrs.transposeB === true;
    const temps: TensorInfo[] = [];
    const free = () => {
      for (const t of temps) backend.disposeData(t.dataId);
    };
    const call = (x: TensorInfo, y: TensorInfo) =>
      stock({
        ...args,
        inputs: { ...inputs, a: x, b: y },
        attrs: { ...attrs, transposeA: false, transposeB: false },
      });
    const transpose = (x: TensorInfo) => {
      const out = transposeK({
        inputs: { x },
        backend: args.backend,
        attrs: { perm: swapLast2(x.shape.length) },
      });
      temps.push(out);
      return out;
    };
    const reshape = (x: TensorInfo, shape: number[]) => {
      const out = reshapeK({ inputs: { x }, backend: args.backend, attrs: { shape } });
      temps.push(out);
      return out;
    };
    const rankA = a.shape.length;
    const rankB = b.shape.length;
    const batchA = product(a.shape.slice(0, -2));
    const batchB = product(b.shape.slice(0, -2));
    const isFused = inputs.bias !== undefined || inputs.preluActivationWeights !== undefined;

    if (batchB === 1) {
      // One XNN call after un-transposing and folding a's batch into rows.
      if (transA) a = transpose(a);
      if (transB) b = transpose(b);
      const m = a.shape[rankA - 2]!;
      const k = a.shape[rankA - 1]!;
      const n = b.shape[rankB - 1]!;
      const outShape = [...a.shape.slice(0, -2), m, n];
      if (batchA === 1) {
        const out = call(a, b);
        free();
        return out;
      }
      const out = call(reshape(a, [1, batchA * m, k]), reshape(b, [1, k, n]));
      free();
      const result = reshapeK({ inputs: { x: out }, backend: args.backend, attrs: { shape: outShape } });
      backend.disposeData(out.dataId);
      return result;
    }

    const sameBatch =
      rankA === rankB && a.shape.slice(0, -2).every((dim, i) => dim === b.shape[i]) && batchA === batchB;
    if (isFused || !sameBatch) return stock(args);
    const m = transA ? a.shape[rankA - 1]! : a.shape[rankA - 2]!;
    const k = transA ? a.shape[rankA - 2]! : a.shape[rankA - 1]!;
    const n = transB ? b.shape[rankB - 2]! : b.shape[rankB - 1]!;
    // Tiny products (decode, M = 1): creating an XNN operator per slice costs more than the loop.
    if (2 * m * n * k < splitMinFlops) return stock(args);
    if (transA) a = transpose(a);
    if (transB) b = transpose(b);
    const a3 = reshape(a, [batchA, m, k]);
    const b3 = reshape(b, [batchB, k, n]);
    // Copy slices straight from the heap: the stock Slice kernel would copy all of the input.
    const heapSlice = (t: TensorInfo, index: number, shape: number[]) => {
      const size = product(shape);
      const out = backend.makeOutput(shape, t.dtype);
      backend
        .typedArrayFromHeap(out)
        .set(backend.typedArrayFromHeap(t).subarray(index * size, (index + 1) * size));
      return out;
    };
    // Results go straight into one output buffer: the stock Concat kernel costs more than the products.
    const joined = backend.makeOutput([batchA, m, n], 'float32');
    for (let i = 0; i < batchA; i++) {
      const ai = heapSlice(a3, i, [1, m, k]);
      const bi = heapSlice(b3, i, [1, k, n]);
      const product = call(ai, bi);
      // Views are taken after the call: a heap growth detaches earlier ones.
      backend.typedArrayFromHeap(joined).set(backend.typedArrayFromHeap(product), i * m * n);
      backend.disposeData(product.dataId);
      backend.disposeData(ai.dataId);
      backend.disposeData(bi.dataId);
    }
    free();
    const result = reshapeK({
      inputs: { x: joined },
      backend: args.backend,
      attrs: { shape: [...inputs.a!.shape.slice(0, -2), m, n] },
    });
    backend.disposeData(joined.dataId);
    return result;
  };
}

// Tensors are immutable (Variable.assign swaps the dataId), so sharing by refcount is safe.
const share = (x: TensorInfo, backend: WasmBackendInternals, dtype: tf.DataType): TensorInfo => {
  backend.incRef(x.dataId);
  return { dataId: x.dataId, shape: x.shape, dtype };
};

/** Identity shares its input's buffer. */
const identityOverride: KernelOverride = (args, stock) => {
  const x = (args.inputs as Record<string, TensorInfo>).x!;
  if (x.dtype === 'string') return stock(args);
  return share(x, args.backend as WasmBackendInternals, x.dtype);
};

/** A Cast to the same dtype shares its input's buffer. */
const castOverride: KernelOverride = (args, stock) => {
  const x = (args.inputs as Record<string, TensorInfo>).x!;
  const dtype = (args.attrs as { dtype: tf.DataType }).dtype;
  if (x.dtype !== dtype || dtype === 'string') return stock(args);
  return share(x, args.backend as WasmBackendInternals, dtype);
};

/** A float32 Sum over leading axes, by rows, without the stock kernel's transpose. */
const sumOverride: KernelOverride = (args, stock) => {
  const x = (args.inputs as Record<string, TensorInfo>).x!;
  const { axis, keepDims } = args.attrs as { axis: number | number[]; keepDims: boolean };
  if (x.dtype !== 'float32') return stock(args);
  const rank = x.shape.length;
  const axes = [...tf.util.parseAxisParam(axis, x.shape)].sort((p, q) => p - q);
  const leading = axes.length > 0 && axes.length < rank && axes.every((ax, i) => ax === i);
  if (!leading) return stock(args);
  const backend = args.backend as WasmBackendInternals;
  const rows = product(x.shape.slice(0, axes.length));
  const inner = product(x.shape.slice(axes.length));
  const outShape = keepDims
    ? x.shape.map((dim, i) => (i < axes.length ? 1 : dim))
    : x.shape.slice(axes.length);
  const out = backend.makeOutput(outShape, 'float32');
  backend.typedArrayFromHeap(out).set(sumRows(backend.typedArrayFromHeap(x), rows, inner));
  return out;
};

/** The column sums of `values` read as `rows` rows of `inner` values, accumulated in float64. */
export function sumRows(values: ArrayLike<number>, rows: number, inner: number): Float64Array {
  const acc = new Float64Array(inner);
  for (let r = 0; r < rows; r++) {
    const base = r * inner;
    for (let j = 0; j < inner; j++) acc[j]! += values[base + j]!;
  }
  return acc;
}

/** Slice copying only the requested runs of its input. */
const sliceOverride: KernelOverride = (args, stock) => {
  const x = (args.inputs as Record<string, TensorInfo>).x!;
  if (x.dtype === 'string') return stock(args);
  const { begin, size } = args.attrs as { begin: number | number[]; size: number | number[] };
  const backend = args.backend as WasmBackendInternals;
  const [start, sizes] = tf.slice_util.parseSliceParams(x as unknown as tf.Tensor, begin, size) as [
    number[],
    number[],
  ];
  const out = backend.makeOutput(sizes, x.dtype);
  if (product(sizes) === 0) return out;
  copySlice(backend.typedArrayFromHeap(x), x.shape, start, sizes, backend.typedArrayFromHeap(out));
  return out;
};

type NumberArray = Float32Array | Int32Array | Uint8Array;

/**
 * Copies the slice of `src` (a row-major array of `shape`) that starts at `start` and spans `sizes`
 * into `dst`, one contiguous run per position of the leading dimensions that are not taken whole.
 */
export function copySlice(
  src: NumberArray,
  shape: readonly number[],
  start: readonly number[],
  sizes: readonly number[],
  dst: NumberArray,
): void {
  const rank = shape.length;
  if (rank === 0) {
    dst[0] = src[0]!;
    return;
  }
  const strides = new Array<number>(rank);
  strides[rank - 1] = 1;
  for (let i = rank - 2; i >= 0; i--) strides[i] = strides[i + 1]! * shape[i + 1]!;
  // Merge trailing full dimensions into one contiguous run.
  let d = rank - 1;
  while (d > 0 && sizes[d] === shape[d]) d--;
  const runLength = sizes[d]! * strides[d]!;
  const outer = sizes.slice(0, d);
  const index = new Array<number>(d).fill(0);
  let offset = 0;
  for (let it = 0, count = product(outer); it < count; it++) {
    let from = start[d]! * strides[d]!;
    for (let k = 0; k < d; k++) from += (start[k]! + index[k]!) * strides[k]!;
    dst.set(src.subarray(from, from + runLength), offset);
    offset += runLength;
    for (let k = d - 1; k >= 0; k--) {
      if (++index[k]! < outer[k]!) break;
      index[k] = 0;
    }
  }
}

/** Axis-0 GatherV2 of int32 indices as row copies. */
const gatherOverride: KernelOverride = (args, stock) => {
  const { x, indices } = args.inputs as Record<string, TensorInfo>;
  const { axis, batchDims } = args.attrs as { axis: number; batchDims?: number };
  const ax = tf.util.parseAxisParam(axis, x!.shape)[0];
  if (ax !== 0 || (batchDims ?? 0) !== 0 || x!.dtype === 'string' || indices!.dtype !== 'int32') {
    return stock(args);
  }
  const backend = args.backend as WasmBackendInternals;
  const out = backend.makeOutput([...indices!.shape, ...x!.shape.slice(1)], x!.dtype);
  gatherRows(
    backend.typedArrayFromHeap(x!),
    x!.shape[0]!,
    product(x!.shape.slice(1)),
    backend.typedArrayFromHeap(indices!),
    product(indices!.shape),
    backend.typedArrayFromHeap(out),
  );
  return out;
};

/**
 * Copies row `ids[i]` of `src` (`rows` rows of `row` values) to row i of `dst`, for the first
 * `count` ids; an id outside the rows is a RangeError.
 */
export function gatherRows(
  src: NumberArray,
  rows: number,
  row: number,
  ids: NumberArray,
  count: number,
  dst: NumberArray,
): void {
  for (let i = 0; i < count; i++) {
    const r = ids[i]!;
    if (r < 0 || r >= rows) throw new RangeError(`GatherV2: index ${r} is outside [0, ${rows})`);
    dst.set(src.subarray(r * row, (r + 1) * row), i * row);
  }
}

/** UnsortedSegmentSum (the gradient of gather), which the wasm backend lacks. */
const unsortedSegmentSumOverride: KernelOverride = (args) => {
  const { x, segmentIds } = args.inputs as Record<string, TensorInfo>;
  const { numSegments } = args.attrs as { numSegments: number };
  const backend = args.backend as WasmBackendInternals;
  const innerShape = x!.shape.slice(segmentIds!.shape.length);
  const out = backend.makeOutput([numSegments, ...innerShape], x!.dtype);
  segmentSum(
    backend.typedArrayFromHeap(x!),
    backend.typedArrayFromHeap(segmentIds!),
    product(segmentIds!.shape),
    product(innerShape),
    numSegments,
    backend.typedArrayFromHeap(out),
  );
  return out;
};

/**
 * Sums the rows of `src` (`inner` values each) into `dst` by segment: row i is added to row
 * `ids[i]`, for the first `count` ids; ids outside `[0, numSegments)` are dropped.
 */
export function segmentSum(
  src: NumberArray,
  ids: NumberArray,
  count: number,
  inner: number,
  numSegments: number,
  dst: NumberArray,
): void {
  dst.fill(0);
  for (let i = 0; i < count; i++) {
    const s = ids[i]!;
    if (s < 0 || s >= numSegments) continue;
    const to = s * inner;
    const from = i * inner;
    for (let j = 0; j < inner; j++) dst[to + j]! += src[from + j]!;
  }
}
