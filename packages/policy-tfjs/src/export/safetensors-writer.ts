// The safetensors format written without a library, for float32 tensors: an 8-byte little-endian
// header length, a JSON header (per tensor: dtype, shape, data_offsets into the data that follows;
// `__metadata__` of strings) padded with spaces to a multiple of 8 bytes so every tensor starts
// aligned, then the tensors' raw little-endian data in header order.
// Format: https://github.com/huggingface/safetensors (README, "Format").
import { InvalidArgumentError } from '@pilotrl/core';

export interface Float32Tensor {
  readonly name: string;
  readonly shape: readonly number[];
  readonly data: Float32Array;
}

/** The bytes of a safetensors file holding `tensors` (F32) and `metadata`. */
export function encodeSafetensors(
  tensors: readonly Float32Tensor[],
  metadata: Readonly<Record<string, string>> = {},
): Uint8Array {
  const header: Record<string, unknown> = { __metadata__: metadata };
  let offset = 0;
  for (const { name, shape, data } of tensors) {
    const size = shape.reduce((a, b) => a * b, 1);
    if (data.length !== size) {
      throw new InvalidArgumentError(
        `tensor ${name} has ${data.length} values but its shape [${shape}] needs ${size}`,
      );
    }
    if (name in header) throw new InvalidArgumentError(`tensor ${name} is given twice`);
    header[name] = { dtype: 'F32', shape: [...shape], data_offsets: [offset, offset + 4 * size] };
    offset += 4 * size;
  }
  const json = new TextEncoder().encode(JSON.stringify(header));
  const headerLength = Math.ceil(json.length / 8) * 8;
  const bytes = new Uint8Array(8 + headerLength + offset);
  const view = new DataView(bytes.buffer);
  view.setBigUint64(0, BigInt(headerLength), true);
  bytes.set(json, 8);
  bytes.fill(0x20, 8 + json.length, 8 + headerLength);
  let at = 8 + headerLength;
  for (const { data } of tensors) {
    for (let i = 0; i < data.length; i++) view.setFloat32(at + 4 * i, data[i]!, true);
    at += 4 * data.length;
  }
  return bytes;
}
