// The safetensors format read without a library: an 8-byte little-endian header length, a JSON
// header (per tensor: dtype, shape, data_offsets relative to the data after the header; an
// optional __metadata__ of strings), then the raw little-endian data. Everything the header says is
// checked against the file's size before any tensor is read, and F32, F16 and BF16 are read to
// float32; any other dtype is refused naming the file and the tensor.
// Format: https://github.com/huggingface/safetensors (README, "Format").
import { open, stat } from 'node:fs/promises';
import { CheckpointError, printable } from '@pilotrl/core';

/** The dtypes read (to float32) and their widths in bytes. */
export const READ_DTYPES = { F32: 4, F16: 2, BF16: 2 } as const;
export type SafetensorsDtype = keyof typeof READ_DTYPES;
/** The dtypes the format defines that we do not read (named in the refusal, so it says which). */
const OTHER_DTYPES = [
  'F64',
  'I64',
  'U64',
  'I32',
  'U32',
  'I16',
  'U16',
  'I8',
  'U8',
  'BOOL',
  'F8_E4M3',
  'F8_E5M2',
  'F8_E8M0',
  'F6_E2M3',
  'F6_E3M2',
  'F4',
  'C64',
];
/** The largest header read: the format's own reference implementation stops at 100 MB. */
export const MAX_HEADER_BYTES = 100_000_000;

export interface SafetensorsEntry {
  readonly name: string;
  readonly dtype: SafetensorsDtype;
  readonly shape: readonly number[];
  /** Byte offsets [begin, end) in the data that follows the header. */
  readonly begin: number;
  readonly end: number;
}

export interface SafetensorsHeader {
  /** The file the header was read from (named in every error). */
  readonly file: string;
  /** Where the data starts in the file: 8 + the header's length. */
  readonly dataStart: number;
  readonly tensors: ReadonlyMap<string, SafetensorsEntry>;
  readonly metadata: Readonly<Record<string, string>>;
}

function refuse(file: string, problem: string): CheckpointError {
  return new CheckpointError(`${file}: ${problem}`);
}

const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/**
 * Parses and checks a safetensors header: `headerBytes` is the JSON after the 8-byte length,
 * `fileSize` the whole file's size. Every offset must lie in the file, match its tensor's shape
 * and dtype, and the tensors must cover the data without gaps or overlaps.
 */
export function parseSafetensorsHeader(
  file: string,
  headerBytes: Uint8Array,
  fileSize: number,
): SafetensorsHeader {
  const dataStart = 8 + headerBytes.length;
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(headerBytes));
  } catch (error) {
    throw refuse(file, `the header is not UTF-8 JSON (${(error as Error).message}); the file is damaged`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw refuse(file, 'the header is not a JSON object of tensors; the file is damaged');
  }
  const dataSize = fileSize - dataStart;
  const tensors = new Map<string, SafetensorsEntry>();
  let metadata: Record<string, string> = {};
  for (const [name, value] of Object.entries(json)) {
    const where = `tensor "${printable(name, 120)}"`;
    if (name === '__metadata__') {
      if (
        typeof value !== 'object' ||
        value === null ||
        Object.values(value).some((v) => typeof v !== 'string')
      ) {
        throw refuse(file, '__metadata__ must be an object of strings');
      }
      metadata = value as Record<string, string>;
      continue;
    }
    const entry = value as { dtype?: unknown; shape?: unknown; data_offsets?: unknown };
    if (typeof entry !== 'object' || entry === null)
      throw refuse(file, `${where} has no dtype, shape and offsets`);
    const { dtype, shape, data_offsets: offsets } = entry;
    if (typeof dtype !== 'string' || !(dtype in READ_DTYPES)) {
      const known = typeof dtype === 'string' && OTHER_DTYPES.includes(dtype);
      throw refuse(
        file,
        `${where} has dtype ${printable(JSON.stringify(dtype), 40)}, ${known ? 'which we do not read' : 'not a safetensors dtype'}; F32, F16 and BF16 are read (save the model in one of them)`,
      );
    }
    if (!Array.isArray(shape) || !shape.every(isCount)) {
      throw refuse(file, `${where} has shape ${printable(JSON.stringify(shape), 80)}, not a list of sizes`);
    }
    const [begin, end] = Array.isArray(offsets) && offsets.length === 2 ? offsets : [];
    if (!isCount(begin) || !isCount(end) || begin > end) {
      throw refuse(
        file,
        `${where} has data_offsets ${printable(JSON.stringify(offsets), 80)}, not [begin, end]`,
      );
    }
    const elements = (shape as number[]).reduce((a, b) => a * b, 1);
    const width = READ_DTYPES[dtype as SafetensorsDtype];
    if (end - begin !== elements * width) {
      throw refuse(
        file,
        `${where} spans ${end - begin} bytes but its shape [${shape.join(', ')}] of ${dtype} needs ${elements * width}`,
      );
    }
    if (end > dataSize) {
      throw refuse(
        file,
        `${where} ends at byte ${dataStart + end} but the file has ${fileSize} bytes: it is truncated (download it again)`,
      );
    }
    tensors.set(name, { name, dtype: dtype as SafetensorsDtype, shape: shape as number[], begin, end });
  }
  // The data must be exactly the tensors, back to back: a gap or an overlap means a damaged file.
  const sorted = [...tensors.values()].sort((a, b) => a.begin - b.begin);
  let covered = 0;
  for (const entry of sorted) {
    if (entry.begin !== covered) {
      throw refuse(
        file,
        `tensor "${printable(entry.name, 120)}" starts at data byte ${entry.begin}, expected ${covered} (tensors overlap or leave a gap)`,
      );
    }
    covered = entry.end;
  }
  if (covered !== dataSize) {
    throw refuse(
      file,
      `the tensors cover ${covered} bytes of data but the file holds ${dataSize} after its header`,
    );
  }
  return { file, dataStart, tensors, metadata };
}

/** Reads and checks the header of the safetensors file `file` (nothing of its data). */
export async function readSafetensorsHeader(file: string): Promise<SafetensorsHeader> {
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch (error) {
    throw new CheckpointError(`${file}: cannot read it (${(error as Error).message})`, { cause: error });
  }
  if (size < 8) throw refuse(file, `has ${size} bytes, fewer than the 8 of a safetensors header length`);
  const handle = await open(file, 'r');
  try {
    const lengthBytes = Buffer.alloc(8);
    await handle.read(lengthBytes, 0, 8, 0);
    const length = lengthBytes.readBigUInt64LE(0);
    if (length > BigInt(Math.min(MAX_HEADER_BYTES, size - 8))) {
      throw refuse(
        file,
        `its header length is ${length} bytes but the file has ${size} (at most ${MAX_HEADER_BYTES} are read): it is truncated or not safetensors`,
      );
    }
    const header = Buffer.alloc(Number(length));
    await handle.read(header, 0, header.length, 8);
    return parseSafetensorsHeader(file, header, size);
  } finally {
    await handle.close();
  }
}

/** float16 bits to a number (subnormals, infinities and NaN included). */
function halfToFloat(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 31) return fraction === 0 ? sign * Number.POSITIVE_INFINITY : Number.NaN;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

/** Raw little-endian bytes of `dtype` to float32 (bf16 is float32's upper half, so exact). */
export function toFloat32(bytes: Uint8Array, dtype: SafetensorsDtype): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = bytes.byteLength / READ_DTYPES[dtype];
  const out = new Float32Array(count);
  if (dtype === 'F32') {
    for (let i = 0; i < count; i++) out[i] = view.getFloat32(i * 4, true);
  } else if (dtype === 'BF16') {
    const widened = new DataView(out.buffer);
    for (let i = 0; i < count; i++) widened.setUint32(i * 4, view.getUint16(i * 2, true) << 16, true);
  } else {
    for (let i = 0; i < count; i++) out[i] = halfToFloat(view.getUint16(i * 2, true));
  }
  return out;
}

/** Reads the tensors `names` of a checked header's file, each to float32. */
export async function readSafetensors(
  header: SafetensorsHeader,
  names: Iterable<string>,
): Promise<Map<string, Float32Array>> {
  const out = new Map<string, Float32Array>();
  const handle = await open(header.file, 'r');
  try {
    for (const name of names) {
      const entry = header.tensors.get(name);
      if (entry === undefined) throw refuse(header.file, `has no tensor "${printable(name, 120)}"`);
      const bytes = Buffer.alloc(entry.end - entry.begin);
      const { bytesRead } = await handle.read(bytes, 0, bytes.length, header.dataStart + entry.begin);
      if (bytesRead !== bytes.length) {
        throw refuse(
          header.file,
          `tensor "${printable(name, 120)}" was cut short while reading: the file changed`,
        );
      }
      out.set(name, toFloat32(bytes, entry.dtype));
    }
  } finally {
    await handle.close();
  }
  return out;
}
