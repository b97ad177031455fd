// Numeric arrays as the Tinker protobuf schema carries them inside `bytes` fields: little-endian
// int32 (token ids), int64 (target tokens) and float32 (weights, logprobs, advantages), as the
// schema's field comments say (`np.array(x, dtype=...).tobytes()`). The protobuf framing itself is
// @bufbuild/protobuf's; this only lays out the payload of those fields.

export function packInt32(values: readonly number[]): Uint8Array {
  const bytes = new Uint8Array(values.length * 4);
  const view = new DataView(bytes.buffer);
  for (const [i, value] of values.entries()) view.setInt32(i * 4, value, true);
  return bytes;
}

export function packInt64(values: readonly number[]): Uint8Array {
  const bytes = new Uint8Array(values.length * 8);
  const view = new DataView(bytes.buffer);
  for (const [i, value] of values.entries()) view.setBigInt64(i * 8, BigInt(value), true);
  return bytes;
}

export function packFloat32(values: readonly number[]): Uint8Array {
  const bytes = new Uint8Array(values.length * 4);
  const view = new DataView(bytes.buffer);
  for (const [i, value] of values.entries()) view.setFloat32(i * 4, value, true);
  return bytes;
}

function viewOf(bytes: Uint8Array, width: number, what: string): DataView {
  if (bytes.byteLength % width !== 0) {
    throw new RangeError(`${what}: ${bytes.byteLength} bytes is not a whole number of ${width}-byte values`);
  }
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function unpackInt32(bytes: Uint8Array, what = 'int32 array'): number[] {
  const view = viewOf(bytes, 4, what);
  return Array.from({ length: bytes.byteLength / 4 }, (_, i) => view.getInt32(i * 4, true));
}

export function unpackInt64(bytes: Uint8Array, what = 'int64 array'): number[] {
  const view = viewOf(bytes, 8, what);
  return Array.from({ length: bytes.byteLength / 8 }, (_, i) => Number(view.getBigInt64(i * 8, true)));
}

export function unpackFloat32(bytes: Uint8Array, what = 'float32 array'): number[] {
  const view = viewOf(bytes, 4, what);
  return Array.from({ length: bytes.byteLength / 4 }, (_, i) => view.getFloat32(i * 4, true));
}

/** bfloat16 values are the upper half of a float32's bits. */
export function unpackBfloat16(bytes: Uint8Array, what = 'bfloat16 array'): number[] {
  const view = viewOf(bytes, 2, what);
  const scratch = new DataView(new ArrayBuffer(4));
  return Array.from({ length: bytes.byteLength / 2 }, (_, i) => {
    scratch.setUint32(0, view.getUint16(i * 2, true) << 16);
    return scratch.getFloat32(0);
  });
}
