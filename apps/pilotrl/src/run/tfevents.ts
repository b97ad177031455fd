// TensorBoard's event-file format, written and read without TensorFlow: TFRecord framing (a
// little-endian uint64 length, its masked CRC-32C, the payload, the payload's masked CRC-32C) around
// `tensorflow.Event` protos whose summaries hold scalar `simple_value`s. Only the fields a scalar log
// needs are encoded; the reader skips any other field, so it reads files other writers made.
// Formats: tensorflow/core/lib/io/record_writer.cc, tensorflow/core/util/event.proto,
// tensorflow/core/framework/summary.proto.

/** The Castagnoli polynomial, reflected (CRC-32C as TFRecord and iSCSI use it). */
const CRC32C_POLY = 0x82f63b78;

const CRC32C_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ CRC32C_POLY : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** The CRC-32C of `bytes`, as an unsigned 32-bit number. */
export function crc32c(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC32C_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** TFRecord's masked CRC: rotated right by 15 bits plus a constant, so a CRC of CRCs stays strong. */
export function maskedCrc32c(bytes: Uint8Array): number {
  const crc = crc32c(bytes);
  return ((((crc >>> 15) | (crc << 17)) >>> 0) + 0xa282ead8) >>> 0;
}

/** One TFRecord: the framing around `payload`. */
export function frameRecord(payload: Uint8Array): Buffer {
  const record = Buffer.alloc(12 + payload.length + 4);
  record.writeBigUInt64LE(BigInt(payload.length), 0);
  record.writeUInt32LE(maskedCrc32c(record.subarray(0, 8)), 8);
  record.set(payload, 12);
  record.writeUInt32LE(maskedCrc32c(payload), 12 + payload.length);
  return record;
}

/** What stopped a read: a damaged record (a CRC that does not match) or a record cut short. */
export class EventFileError extends Error {
  override readonly name = 'EventFileError';
}

/**
 * The payloads of the TFRecords in `file`, each checked against its CRCs. A record cut short at the
 * end (a writer killed mid-write) ends the list, as TensorBoard's reader treats it; a CRC that does
 * not match throws, naming the byte offset.
 */
export function readRecords(file: Uint8Array, what = 'the event file'): Buffer[] {
  const bytes = Buffer.from(file.buffer, file.byteOffset, file.byteLength);
  const records: Buffer[] = [];
  let offset = 0;
  while (offset + 12 <= bytes.length) {
    if (bytes.readUInt32LE(offset + 8) !== maskedCrc32c(bytes.subarray(offset, offset + 8))) {
      throw new EventFileError(`${what}: the length of the record at byte ${offset} fails its CRC`);
    }
    const length = bytes.readBigUInt64LE(offset);
    const end = BigInt(offset) + 12n + length + 4n;
    if (end > BigInt(bytes.length)) break;
    const payload = bytes.subarray(offset + 12, offset + 12 + Number(length));
    if (bytes.readUInt32LE(offset + 12 + Number(length)) !== maskedCrc32c(payload)) {
      throw new EventFileError(`${what}: the record at byte ${offset} fails its CRC`);
    }
    records.push(payload);
    offset = Number(end);
  }
  return records;
}

// --- protobuf: the few wire types the Event and Summary messages use ---

const VARINT = 0;
const FIXED64 = 1;
const LENGTH_DELIMITED = 2;
const FIXED32 = 5;

/** A non-negative integer (below 2^53) as a base-128 varint. */
function varint(value: number): number[] {
  const out: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    out.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  out.push(rest);
  return out;
}

const key = (field: number, wireType: number) => varint(field * 8 + wireType);

function lengthDelimited(field: number, payload: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from([...key(field, LENGTH_DELIMITED), ...varint(payload.length)]), payload]);
}

function double(field: number, value: number): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeDoubleLE(value);
  return Buffer.concat([Buffer.from(key(field, FIXED64)), bytes]);
}

function float(field: number, value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeFloatLE(value);
  return Buffer.concat([Buffer.from(key(field, FIXED32)), bytes]);
}

/** One scalar of a summary: `Summary.Value { tag = 1; simple_value = 2 }`. */
export interface ScalarValue {
  tag: string;
  value: number;
}

/** What an event holds: `Event { wall_time = 1; step = 2; file_version = 3 | summary = 5 }`. */
export interface TfEvent {
  /** Seconds since the Unix epoch. */
  wallTime: number;
  step: number;
  fileVersion?: string;
  scalars?: ScalarValue[];
}

/** The version string every event file opens with, as TensorFlow's writers write it. */
export const FILE_VERSION = 'brain.Event:2';

/** The protobuf encoding of `event`. */
export function encodeEvent(event: TfEvent): Buffer {
  if (!Number.isSafeInteger(event.step) || event.step < 0) {
    throw new RangeError(`an event's step must be a non-negative integer (got ${event.step})`);
  }
  const parts = [double(1, event.wallTime)];
  if (event.step !== 0) parts.push(Buffer.from([...key(2, VARINT), ...varint(event.step)]));
  if (event.fileVersion !== undefined) parts.push(lengthDelimited(3, Buffer.from(event.fileVersion, 'utf8')));
  if (event.scalars !== undefined) {
    const values = event.scalars.map(({ tag, value }) =>
      lengthDelimited(1, Buffer.concat([lengthDelimited(1, Buffer.from(tag, 'utf8')), float(2, value)])),
    );
    parts.push(lengthDelimited(5, Buffer.concat(values)));
  }
  return Buffer.concat(parts);
}

/** A protobuf message's fields in order, as (field number, wire type, raw value). */
function* fields(message: Buffer): Generator<{ field: number; wireType: number; value: Buffer | bigint }> {
  let offset = 0;
  const readVarint = (): bigint => {
    let result = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (offset >= message.length) throw new EventFileError('a protobuf varint runs past its message');
      const byte = message[offset++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
    }
  };
  const take = (length: number): Buffer => {
    if (offset + length > message.length) throw new EventFileError('a protobuf field runs past its message');
    const bytes = message.subarray(offset, offset + length);
    offset += length;
    return bytes;
  };
  while (offset < message.length) {
    const tag = readVarint();
    const field = Number(tag >> 3n);
    const wireType = Number(tag & 7n);
    if (wireType === VARINT) yield { field, wireType, value: readVarint() };
    else if (wireType === FIXED64) yield { field, wireType, value: take(8) };
    else if (wireType === LENGTH_DELIMITED) yield { field, wireType, value: take(Number(readVarint())) };
    else if (wireType === FIXED32) yield { field, wireType, value: take(4) };
    else throw new EventFileError(`protobuf wire type ${wireType} (field ${field}) is not one an event uses`);
  }
}

function decodeValue(message: Buffer): ScalarValue | undefined {
  let tag = '';
  let value: number | undefined;
  for (const f of fields(message)) {
    if (f.field === 1 && f.wireType === LENGTH_DELIMITED) tag = (f.value as Buffer).toString('utf8');
    if (f.field === 2 && f.wireType === FIXED32) value = (f.value as Buffer).readFloatLE();
  }
  return value === undefined ? undefined : { tag, value };
}

/** The event encoded in `payload`: its time, step, file version and scalar values (others skipped). */
export function decodeEvent(payload: Buffer): TfEvent {
  const event: TfEvent = { wallTime: 0, step: 0 };
  for (const f of fields(payload)) {
    if (f.field === 1 && f.wireType === FIXED64) event.wallTime = (f.value as Buffer).readDoubleLE();
    else if (f.field === 2 && f.wireType === VARINT)
      event.step = Number(BigInt.asIntN(64, f.value as bigint));
    else if (f.field === 3 && f.wireType === LENGTH_DELIMITED)
      event.fileVersion = (f.value as Buffer).toString('utf8');
    else if (f.field === 5 && f.wireType === LENGTH_DELIMITED) {
      event.scalars = [];
      for (const value of fields(f.value as Buffer)) {
        if (value.field !== 1 || value.wireType !== LENGTH_DELIMITED) continue;
        const scalar = decodeValue(value.value as Buffer);
        if (scalar !== undefined) event.scalars.push(scalar);
      }
    }
  }
  return event;
}

/** The events of an event file's bytes, in order. */
export function readEvents(file: Uint8Array, what?: string): TfEvent[] {
  return readRecords(file, what).map(decodeEvent);
}
