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
  const transposeK = run('Transpose');
  const reshapeK = run('Reshape');
  const replaced = new Map<string, KernelConfig | undefined>();

  const replace = (name: string, kernelFunc: (args: KernelArgs, stock: KernelRun) => TensorInfo) => {
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

  const matmul = (args: KernelArgs, stock: KernelRun): TensorInfo => {
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

  if (options.matmul !== false) {
    replace('BatchMatMul', matmul);
    replace('_FusedMatMul', matmul);
  }

  if (options.identity !== false) {
    // Tensors are immutable (Variable.assign swaps the dataId), so sharing by refcount is safe.
    const share = (x: TensorInfo, backend: WasmBackendInternals, dtype: tf.DataType): TensorInfo => {
      backend.incRef(x.dataId);
      return { dataId: x.dataId, shape: x.shape, dtype };
    };
    replace('Identity', (args, stock) => {
      const x = (args.inputs as Record<string, TensorInfo>).x!;
      if (x.dtype === 'string') return stock(args);
      return share(x, args.backend as WasmBackendInternals, x.dtype);
    });
    replace('Cast', (args, stock) => {
      const x = (args.inputs as Record<string, TensorInfo>).x!;
      const dtype = (args.attrs as { dtype: tf.DataType }).dtype;
      if (x.dtype !== dtype || dtype === 'string') return stock(args);
      return share(x, args.backend as WasmBackendInternals, dtype);
    });
  }

  if (options.sum !== false) {
    replace('Sum', (args, stock) => {
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
      const values = backend.typedArrayFromHeap(x);
      const acc = new Float64Array(inner);
      for (let r = 0; r < rows; r++) {
        const base = r * inner;
        for (let j = 0; j < inner; j++) acc[j]! += values[base + j]!;
      }
      backend.typedArrayFromHeap(out).set(acc);
      return out;
    });
  }

  if (options.slice !== false) {
    replace('Slice', (args, stock) => {
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
      const src = backend.typedArrayFromHeap(x);
      const dst = backend.typedArrayFromHeap(out);
      const shape = x.shape;
      const rank = shape.length;
      if (rank === 0) {
        dst[0] = src[0]!;
        return out;
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
      return out;
    });
  }

  if (options.gather !== false) {
    replace('GatherV2', (args, stock) => {
      const { x, indices } = args.inputs as Record<string, TensorInfo>;
      const { axis, batchDims } = args.attrs as { axis: number; batchDims?: number };
      const ax = tf.util.parseAxisParam(axis, x!.shape)[0];
      if (ax !== 0 || (batchDims ?? 0) !== 0 || x!.dtype === 'string' || indices!.dtype !== 'int32') {
        return stock(args);
      }
      const backend = args.backend as WasmBackendInternals;
      const row = product(x!.shape.slice(1));
      const rows = x!.shape[0]!;
      const count = product(indices!.shape);
      const out = backend.makeOutput([...indices!.shape, ...x!.shape.slice(1)], x!.dtype);
      const dst = backend.typedArrayFromHeap(out);
      const src = backend.typedArrayFromHeap(x!);
      const ids = backend.typedArrayFromHeap(indices!);
      for (let i = 0; i < count; i++) {
        const r = ids[i]!;
        if (r < 0 || r >= rows) throw new RangeError(`GatherV2: index ${r} is outside [0, ${rows})`);
        dst.set(src.subarray(r * row, (r + 1) * row), i * row);
      }
      return out;
    });
  }

  if (tf.getKernel('UnsortedSegmentSum', BACKEND) === undefined) {
    replace('UnsortedSegmentSum', (args) => {
      const { x, segmentIds } = args.inputs as Record<string, TensorInfo>;
      const { numSegments } = args.attrs as { numSegments: number };
      const backend = args.backend as WasmBackendInternals;
      const innerShape = x!.shape.slice(segmentIds!.shape.length);
      const inner = product(innerShape);
      const count = product(segmentIds!.shape);
      const out = backend.makeOutput([numSegments, ...innerShape], x!.dtype);
      const dst = backend.typedArrayFromHeap(out);
      const src = backend.typedArrayFromHeap(x!);
      const ids = backend.typedArrayFromHeap(segmentIds!);
      dst.fill(0);
      for (let i = 0; i < count; i++) {
        const s = ids[i]!;
        if (s < 0 || s >= numSegments) continue;
        const to = s * inner;
        const from = i * inner;
        for (let j = 0; j < inner; j++) dst[to + j]! += src[from + j]!;
      }
      return out;
    });
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
