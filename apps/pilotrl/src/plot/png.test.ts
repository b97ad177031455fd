import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { chartToPng, chartToSvg } from './charts';
import { crc32, encodePng } from './png';

/** Reads back a PNG written by encodePng, checking every chunk's CRC. */
function decodePng(file: Buffer) {
  expect([...file.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  let offset = 8;
  let width = 0;
  let height = 0;
  const idat: Buffer[] = [];
  while (offset < file.length) {
    const length = file.readUInt32BE(offset);
    const type = file.toString('ascii', offset + 4, offset + 8);
    const data = file.subarray(offset + 8, offset + 8 + length);
    expect(file.readUInt32BE(offset + 8 + length)).toBe(
      crc32(file.subarray(offset + 4, offset + 8 + length)),
    );
    if (type === 'IHDR') [width, height] = [data.readUInt32BE(0), data.readUInt32BE(4)];
    if (type === 'IDAT') idat.push(data);
    offset += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const pixel = (x: number, y: number) => [
    ...raw.subarray(y * (width * 4 + 1) + 1 + x * 4, y * (width * 4 + 1) + 5 + x * 4),
  ];
  return { width, height, pixel };
}

describe('PNG charts', () => {
  it('computes the standard CRC-32', () => {
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
  });

  it('encodes pixels that decode back exactly', () => {
    const rgba = new Uint8Array(3 * 2 * 4).map((_, i) => (i * 37) % 256);
    const png = decodePng(encodePng(3, 2, rgba));
    expect(png.width).toBe(3);
    expect(png.pixel(2, 1)).toEqual([...rgba.subarray(20, 24)]);
  });

  it('draws a line chart with its series in colour on white', () => {
    const chart = {
      kind: 'line',
      title: 'Success rate',
      xLabel: 'iteration',
      yLabel: 'success',
      yRange: [0, 1],
      series: [
        {
          name: 'valid_seen',
          points: [
            [0, 0.1],
            [10, 0.9],
          ],
        },
      ],
    } as const;
    const png = decodePng(chartToPng(chart, 400, 200));
    expect(png.pixel(1, 1)).toEqual([255, 255, 255, 255]);
    let blue = 0;
    for (let y = 0; y < 200; y++)
      for (let x = 0; x < 400; x++) if (png.pixel(x, y).join() === '31,119,180,255') blue++;
    expect(blue).toBeGreaterThan(100);
    const svg = chartToSvg(chart);
    expect(svg).toContain('<line');
    expect(svg).toContain('>valid_seen</text>');
  });

  it('escapes text in SVG', () => {
    const svg = chartToSvg({
      kind: 'bar',
      title: '<b>&',
      yLabel: 'y',
      groups: [{ label: 'a', bars: [{ name: 'x', value: 1 }] }],
    });
    expect(svg).toContain('&lt;b&gt;&amp;');
  });
});
