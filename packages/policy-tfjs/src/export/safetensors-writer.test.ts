import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSafetensorsHeader, readSafetensors, readSafetensorsHeader } from '../hf/safetensors';
import { encodeSafetensors, writeSafetensorsFile } from './safetensors-writer';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'safetensors-writer-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const tensors = [
  { name: 'transformer.wte.weight', shape: [3, 2], data: Float32Array.of(1, -2, 3.5, 1e-30, -0, 7) },
  { name: 'transformer.ln_f.bias', shape: [1], data: Float32Array.of(0.1) },
  { name: 'empty.weight', shape: [0, 4], data: new Float32Array(0) },
];

describe('encodeSafetensors', () => {
  it('writes a file our safetensors reader reads back exactly, metadata included', async () => {
    const file = join(root, 'round-trip.safetensors');
    await writeFile(file, encodeSafetensors(tensors, { format: 'pt' }));
    const header = await readSafetensorsHeader(file);
    expect(header.metadata).toEqual({ format: 'pt' });
    expect([...header.tensors.keys()]).toEqual(tensors.map((t) => t.name));
    const read = await readSafetensors(
      header,
      tensors.map((t) => t.name),
    );
    for (const tensor of tensors) {
      expect(header.tensors.get(tensor.name)).toMatchObject({ dtype: 'F32', shape: tensor.shape });
      expect(read.get(tensor.name)).toEqual(tensor.data);
    }
  });

  it('starts the data on an 8-byte boundary, its header length little-endian in the first 8 bytes', () => {
    const bytes = encodeSafetensors(tensors);
    const headerLength = Number(new DataView(bytes.buffer).getBigUint64(0, true));
    expect(headerLength % 8).toBe(0);
    expect(bytes.length).toBe(8 + headerLength + 4 * 7);
    const header = parseSafetensorsHeader('memory', bytes.subarray(8, 8 + headerLength), bytes.length);
    expect(header.dataStart).toBe(8 + headerLength);
    expect(new DataView(bytes.buffer).getFloat32(8 + headerLength + 8, true)).toBe(3.5);
  });

  it('refuses a tensor whose values do not fill its shape, and a name given twice', () => {
    expect(() => encodeSafetensors([{ name: 'w', shape: [2, 2], data: new Float32Array(3) }])).toThrow(
      'tensor w has 3 values but its shape [2,2] needs 4',
    );
    expect(() => encodeSafetensors([tensors[1]!, tensors[1]!])).toThrow(
      'tensor transformer.ln_f.bias is given twice',
    );
  });
});

describe('writeSafetensorsFile', () => {
  it('writes, tensor by tensor, the bytes encodeSafetensors builds in memory', async () => {
    const file = join(root, 'streamed.safetensors');
    await writeSafetensorsFile(file, tensors, { format: 'pt' });
    expect(new Uint8Array(await readFile(file))).toEqual(encodeSafetensors(tensors, { format: 'pt' }));
    await expect(
      writeSafetensorsFile(join(root, 'refused.safetensors'), [tensors[1]!, tensors[1]!]),
    ).rejects.toThrow('tensor transformer.ln_f.bias is given twice');
  });
});
