import { Resvg } from '@resvg/resvg-js';
import { describe, expect, it } from 'vitest';
import { chartToPng } from './chart-png';

/** Decodes a PNG file to RGBA pixels by drawing it, as an image, with resvg. */
function decode(png: Buffer, width: number, height: number) {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><image href="data:image/png;base64,${png.toString('base64')}" width="${width}" height="${height}"/></svg>`;
  const { pixels } = new Resvg(svg).render();
  const pixel = (x: number, y: number) => [...pixels.subarray((y * width + x) * 4, (y * width + x) * 4 + 4)];
  const count = (x0: number, y0: number, x1: number, y1: number, test: (rgba: number[]) => boolean) => {
    let n = 0;
    for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) if (test(pixel(x, y))) n++;
    return n;
  };
  return { pixel, count };
}

describe('PNG charts', () => {
  it('renders a chart at its size, in colour on white, its title in the bundled font', () => {
    const png = chartToPng(
      {
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
      },
      400,
      200,
    );
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.toString('latin1', 12, 16)).toBe('IHDR');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([400, 200]);
    const image = decode(png, 400, 200);
    expect(image.pixel(1, 1)).toEqual([255, 255, 255, 255]);
    const blue = image.count(0, 0, 400, 200, ([r, g, b]) => r === 31 && g === 119 && b === 180);
    expect(blue).toBeGreaterThan(100);
    // System fonts are off: text shows only if the bundled font loaded. The title is at the top middle.
    const ink = image.count(150, 4, 250, 26, ([r, g, b]) => r! + g! + b! < 3 * 128);
    expect(ink).toBeGreaterThan(50);
  });
});
