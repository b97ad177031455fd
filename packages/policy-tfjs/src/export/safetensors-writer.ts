// The safetensors format written without a library, for float32 tensors: an 8-byte little-endian
// header length, a JSON header (per tensor: dtype, shape, data_offsets into the data that follows;
// `__metadata__` of strings) padded with spaces to a multiple of 8 bytes so every tensor starts
// aligned, then the tensors' raw little-endian data in header order. `encodeSafetensors` builds the
// whole file in memory; `writeSafetensorsFile` writes it tensor by tensor, so a model larger than
// one buffer can hold is written too.
// Format: https://github.com/huggingface/safetensors (README, "Format").
import { type FileHandle, open } from 'node:fs/promises';
import { InvalidArgumentError } from '@pilotrl/core';

export interface Float32Tensor {
  readonly name: string;
  readonly shape: readonly number[];
  readonly data: Float32Array;
}

/** The 8-byte length and the padded JSON header of `tensors`, and the size of the data after it. */
function encodeHeader(
  tensors: readonly Float32Tensor[],
  metadata: Readonly<Record<string, string>>,
): { head: Uint8Array; dataBytes: number } {
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
  const head = new Uint8Array(8 + headerLength);
  new DataView(head.buffer).setBigUint64(0, BigInt(headerLength), true);
  head.set(json, 8);
  head.fill(0x20, 8 + json.length);
  return { head, dataBytes: offset };
}

/** `data` as little-endian float32 bytes. */
function littleEndian(data: Float32Array, into: Uint8Array, at: number): void {
  const view = new DataView(into.buffer, into.byteOffset, into.byteLength);
  for (let i = 0; i < data.length; i++) view.setFloat32(at + 4 * i, data[i]!, true);
}

/** The bytes of a safetensors file holding `tensors` (F32) and `metadata`. */
export function encodeSafetensors(
  tensors: readonly Float32Tensor[],
  metadata: Readonly<Record<string, string>> = {},
): Uint8Array {
  const { head, dataBytes } = encodeHeader(tensors, metadata);
  const bytes = new Uint8Array(head.length + dataBytes);
  bytes.set(head);
  let at = head.length;
  for (const { data } of tensors) {
    littleEndian(data, bytes, at);
    at += 4 * data.length;
  }
  return bytes;
}

/** Writes `tensors` (F32) and `metadata` as the safetensors file `file`, one tensor at a time. */
export async function writeSafetensorsFile(
  file: string,
  tensors: readonly Float32Tensor[],
  metadata: Readonly<Record<string, string>> = {},
): Promise<void> {
  const { head } = encodeHeader(tensors, metadata);
  const handle = await open(file, 'w');
  try {
    await writeAll(handle, head);
    for (const { data } of tensors) {
      const bytes = new Uint8Array(4 * data.length);
      littleEndian(data, bytes, 0);
      await writeAll(handle, bytes);
    }
  } finally {
    await handle.close();
  }
}

/** Writes every byte of `bytes` at the file's current end (a write may take fewer than it is given). */
async function writeAll(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  for (let done = 0; done < bytes.length; ) {
    done += (await handle.write(bytes, done, bytes.length - done)).bytesWritten;
  }
}
