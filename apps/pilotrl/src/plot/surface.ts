// Drawing surfaces for charts: the same chart code draws into an RGBA raster (for PNG files) or
// into SVG markup (for the HTML report).
import { GLYPH_ADVANCE, GLYPH_HEIGHT, GLYPH_WIDTH, glyph } from './font';
import { encodePng } from './png';

export type Anchor = 'start' | 'middle' | 'end';

export interface Surface {
  readonly width: number;
  readonly height: number;
  rect(x: number, y: number, w: number, h: number, color: string): void;
  line(x1: number, y1: number, x2: number, y2: number, color: string, thickness?: number): void;
  /** Text with its baseline-ish bottom at y; `size` is the glyph scale (1 = 7 px tall). */
  text(x: number, y: number, text: string, color: string, anchor?: Anchor, size?: number): void;
}

/** Parses `#rrggbb`. */
function rgb(color: string): [number, number, number] {
  const value = Number.parseInt(color.slice(1), 16);
  return [(value >> 16) & 255, (value >> 8) & 255, value & 255];
}

export class RasterSurface implements Surface {
  readonly pixels: Uint8Array;

  constructor(
    readonly width: number,
    readonly height: number,
    background = '#ffffff',
  ) {
    this.pixels = new Uint8Array(width * height * 4);
    this.rect(0, 0, width, height, background);
  }

  private set(x: number, y: number, [r, g, b]: [number, number, number]): void {
    const px = Math.round(x);
    const py = Math.round(y);
    if (px < 0 || py < 0 || px >= this.width || py >= this.height) return;
    const i = (py * this.width + px) * 4;
    this.pixels[i] = r;
    this.pixels[i + 1] = g;
    this.pixels[i + 2] = b;
    this.pixels[i + 3] = 255;
  }

  rect(x: number, y: number, w: number, h: number, color: string): void {
    const c = rgb(color);
    for (let py = Math.round(y); py < Math.round(y + h); py++) {
      for (let px = Math.round(x); px < Math.round(x + w); px++) this.set(px, py, c);
    }
  }

  line(x1: number, y1: number, x2: number, y2: number, color: string, thickness = 1): void {
    const c = rgb(color);
    const steps = Math.max(1, Math.ceil(Math.max(Math.abs(x2 - x1), Math.abs(y2 - y1))));
    const half = (thickness - 1) / 2;
    for (let s = 0; s <= steps; s++) {
      const x = x1 + ((x2 - x1) * s) / steps;
      const y = y1 + ((y2 - y1) * s) / steps;
      for (let dy = -half; dy <= half; dy++)
        for (let dx = -half; dx <= half; dx++) this.set(x + dx, y + dy, c);
    }
  }

  text(x: number, y: number, text: string, color: string, anchor: Anchor = 'start', size = 1): void {
    const width = (text.length * GLYPH_ADVANCE - 1) * size;
    const left = anchor === 'start' ? x : anchor === 'middle' ? x - width / 2 : x - width;
    const top = y - GLYPH_HEIGHT * size;
    [...text].forEach((char, index) => {
      const rows = glyph(char);
      for (let row = 0; row < GLYPH_HEIGHT; row++) {
        for (let col = 0; col < GLYPH_WIDTH; col++) {
          if (((rows[row] ?? 0) >> (GLYPH_WIDTH - 1 - col)) & 1) {
            const gx = left + (index * GLYPH_ADVANCE + col) * size;
            this.rect(gx, top + row * size, size, size, color);
          }
        }
      }
    });
  }

  toPng(): Buffer {
    return encodePng(this.width, this.height, this.pixels);
  }
}

const escapeXml = (text: string) =>
  text.replace(
    /[<>&"']/g,
    (ch) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&#39;' })[ch]!,
  );

export class SvgSurface implements Surface {
  private readonly parts: string[] = [];

  constructor(
    readonly width: number,
    readonly height: number,
    background = '#ffffff',
  ) {
    this.rect(0, 0, width, height, background);
  }

  rect(x: number, y: number, w: number, h: number, color: string): void {
    this.parts.push(
      `<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${w.toFixed(1)}" height="${h.toFixed(1)}" fill="${color}"/>`,
    );
  }

  line(x1: number, y1: number, x2: number, y2: number, color: string, thickness = 1): void {
    this.parts.push(
      `<line x1="${x1.toFixed(1)}" y1="${y1.toFixed(1)}" x2="${x2.toFixed(1)}" y2="${y2.toFixed(1)}" stroke="${color}" stroke-width="${thickness}"/>`,
    );
  }

  text(x: number, y: number, text: string, color: string, anchor: Anchor = 'start', size = 1): void {
    this.parts.push(
      `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" fill="${color}" font-size="${(9 * size).toFixed(0)}" font-family="sans-serif" text-anchor="${anchor}">${escapeXml(text)}</text>`,
    );
  }

  toSvg(): string {
    return `<svg xmlns="http://www.w3.org/2000/svg" width="${this.width}" height="${this.height}" viewBox="0 0 ${this.width} ${this.height}">${this.parts.join('')}</svg>`;
  }
}
