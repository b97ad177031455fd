import { describe, expect, it } from 'vitest';
import {
  crc32c,
  decodeEvent,
  EventFileError,
  encodeEvent,
  FILE_VERSION,
  frameRecord,
  maskedCrc32c,
  readEvents,
  readRecords,
} from './tfevents';

const bytes = (...values: number[]) => Uint8Array.from(values);

describe('CRC-32C', () => {
  it('matches the known vectors', () => {
    // The check value of the CRC-32C catalogue entry ("123456789").
    expect(crc32c(Buffer.from('123456789'))).toBe(0xe3069283);
    // RFC 3720, appendix B.4: 32 zero bytes, 32 bytes of 0xff, 0..31 and 31..0.
    expect(crc32c(new Uint8Array(32))).toBe(0x8a9136aa);
    expect(crc32c(new Uint8Array(32).fill(0xff))).toBe(0x62a8ab43);
    expect(crc32c(Uint8Array.from({ length: 32 }, (_, i) => i))).toBe(0x46dd794e);
    expect(crc32c(Uint8Array.from({ length: 32 }, (_, i) => 31 - i))).toBe(0x113fdb5c);
    expect(crc32c(bytes())).toBe(0);
  });

  it('masks as TFRecord does', () => {
    // Figures from tensorboard 2.21.0's own masked_crc32c (compat/tensorflow_stub/pywrap_tensorflow.py).
    expect(maskedCrc32c(Buffer.from('123456789'))).toBe(0xc78ab0e5);
    expect(maskedCrc32c(bytes())).toBe(0xa282ead8);
    expect(maskedCrc32c(new Uint8Array(8))).toBe(0x07980329);
  });
});

describe('TFRecord framing', () => {
  it('frames a payload with its length, both CRCs, and reads it back', () => {
    const payload = Buffer.from('an event');
    const record = frameRecord(payload);
    expect(record.length).toBe(8 + 4 + payload.length + 4);
    expect(record.readBigUInt64LE(0)).toBe(BigInt(payload.length));
    expect(record.readUInt32LE(8)).toBe(maskedCrc32c(record.subarray(0, 8)));
    expect(record.readUInt32LE(12 + payload.length)).toBe(maskedCrc32c(payload));
    const two = Buffer.concat([record, frameRecord(Buffer.from('another'))]);
    expect(readRecords(two).map((r) => r.toString())).toEqual(['an event', 'another']);
  });

  it('stops at a record cut short, and refuses one whose CRC fails', () => {
    const whole = Buffer.concat([frameRecord(Buffer.from('first')), frameRecord(Buffer.from('second'))]);
    expect(readRecords(whole.subarray(0, whole.length - 3)).map((r) => r.toString())).toEqual(['first']);
    const damaged = Buffer.from(whole);
    damaged[12 + 2] = damaged[12 + 2]! ^ 1;
    expect(() => readRecords(damaged, 'events')).toThrow(
      new EventFileError('events: the record at byte 0 fails its CRC'),
    );
    const badLength = Buffer.from(whole);
    badLength[0] = badLength[0]! + 1;
    expect(() => readRecords(badLength, 'events')).toThrow(/length of the record at byte 0 fails its CRC/);
  });
});

describe('Event protos', () => {
  it('encodes the file version event as TensorFlow does', () => {
    // Event { wall_time: 1.5 (field 1, fixed64), file_version: "brain.Event:2" (field 3) }.
    const expected = Buffer.concat([
      bytes(0x09),
      Buffer.from(new Float64Array([1.5]).buffer),
      bytes(0x1a, FILE_VERSION.length),
      Buffer.from(FILE_VERSION),
    ]);
    expect(encodeEvent({ wallTime: 1.5, step: 0, fileVersion: FILE_VERSION })).toEqual(expected);
  });

  it('encodes a summary scalar field by field', () => {
    const encoded = encodeEvent({ wallTime: 2, step: 300, scalars: [{ tag: 'a/b', value: 0.25 }] });
    const value = Buffer.concat([
      bytes(0x0a, 3),
      Buffer.from('a/b'),
      bytes(0x15),
      Buffer.from(new Float32Array([0.25]).buffer),
    ]);
    const expected = Buffer.concat([
      bytes(0x09),
      Buffer.from(new Float64Array([2]).buffer),
      // step 300 as a varint: 0xac 0x02.
      bytes(0x10, 0xac, 0x02),
      bytes(0x2a, value.length + 2, 0x0a, value.length),
      value,
    ]);
    expect(encoded).toEqual(expected);
  });

  it('round-trips steps past 32 bits, many values and float32 rounding', () => {
    const event = {
      wallTime: 1_765_000_000.125,
      step: 2 ** 40 + 7,
      scalars: [
        { tag: 'charts/success_rate', value: 0.1 },
        { tag: 'losses/policy_loss', value: -3.5 },
        { tag: 'eval/valid_unseen/success/rate', value: 1e-30 },
      ],
    };
    const back = decodeEvent(encodeEvent(event));
    expect(back).toEqual({
      ...event,
      scalars: event.scalars.map(({ tag, value }) => ({ tag, value: Math.fround(value) })),
    });
  });

  it('reads a file of framed events, skipping fields it does not know', () => {
    // An Event with a field 10 (source_metadata) beside a scalar: skipped, not an error.
    const unknown = Buffer.concat([
      bytes(0x52, 2, 0x0a, 0),
      encodeEvent({ wallTime: 3, step: 4, scalars: [] }),
    ]);
    const file = Buffer.concat([
      frameRecord(encodeEvent({ wallTime: 1, step: 0, fileVersion: FILE_VERSION })),
      frameRecord(unknown),
    ]);
    expect(readEvents(file)).toEqual([
      { wallTime: 1, step: 0, fileVersion: FILE_VERSION },
      { wallTime: 3, step: 4, scalars: [] },
    ]);
  });

  it('refuses a step that is not a non-negative integer', () => {
    expect(() => encodeEvent({ wallTime: 0, step: -1 })).toThrow(RangeError);
    expect(() => encodeEvent({ wallTime: 0, step: 1.5 })).toThrow(RangeError);
  });
});
