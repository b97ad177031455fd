// SVG markup for the charts, in the charts' font, keeping the box of every text it places so that
// a layout (and its tests) can tell where labels are.
import { CHART_FONT_FAMILY, textExtent, textWidth } from './chart-font';

export type Anchor = 'start' | 'middle' | 'end';

/** Where a text was placed: its string and the box its glyphs can cover. */
export interface TextBox {
  text: string;
  left: number;
  top: number;
  right: number;
  bottom: number;
}

const escapeXml = (text: string) =>
  text.replace(
    /[<>&"']/g,
    (ch) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&#39;' })[ch]!,
  );

const n = (value: number) => Number(value.toFixed(1));

/** The box `text` covers with its baseline at `y`, anchored at `x`. */
export function textBox(text: string, x: number, y: number, size: number, anchor: Anchor = 'start'): TextBox {
  const width = textWidth(text, size);
  const left = anchor === 'start' ? x : anchor === 'middle' ? x - width / 2 : x - width;
  const { ascent, descent } = textExtent(size);
  return { text, left, top: y - ascent, right: left + width, bottom: y + descent };
}

/** `text` cut short with an ellipsis so that it is at most `maxWidth` wide at `size`. */
export function fitText(text: string, size: number, maxWidth: number): string {
  if (textWidth(text, size) <= maxWidth) return text;
  const chars = [...text];
  while (chars.length > 0 && textWidth(`${chars.join('')}…`, size) > maxWidth) chars.pop();
  return `${chars.join('')}…`;
}

export class SvgCanvas {
  private readonly parts: string[] = [];
  readonly texts: TextBox[] = [];

  constructor(
    readonly width: number,
    readonly height: number,
    background = '#ffffff',
  ) {
    this.rect(0, 0, width, height, background);
  }

  rect(x: number, y: number, w: number, h: number, color: string): void {
    this.parts.push(`<rect x="${n(x)}" y="${n(y)}" width="${n(w)}" height="${n(h)}" fill="${color}"/>`);
  }

  line(x1: number, y1: number, x2: number, y2: number, color: string, thickness = 1): void {
    this.parts.push(
      `<line x1="${n(x1)}" y1="${n(y1)}" x2="${n(x2)}" y2="${n(y2)}" stroke="${color}" stroke-width="${thickness}"/>`,
    );
  }

  polyline(points: readonly (readonly [number, number])[], color: string, thickness: number): void {
    this.parts.push(
      `<polyline points="${points.map(([x, y]) => `${n(x)},${n(y)}`).join(' ')}" fill="none" stroke="${color}" stroke-width="${thickness}" stroke-linejoin="round"/>`,
    );
  }

  /**
   * Text with its baseline at `y`; returns the box it covers. `halo` outlines the glyphs in white,
   * for text drawn over the plot's lines.
   */
  text(
    x: number,
    y: number,
    text: string,
    color: string,
    size: number,
    anchor: Anchor = 'start',
    halo = false,
  ): TextBox {
    const box = textBox(text, x, y, size, anchor);
    this.texts.push(box);
    const outline = halo
      ? ' stroke="#ffffff" stroke-width="3" stroke-linejoin="round" paint-order="stroke"'
      : '';
    this.parts.push(
      `<text x="${n(x)}" y="${n(y)}" fill="${color}" font-size="${size}" text-anchor="${anchor}"${outline}>${escapeXml(text)}</text>`,
    );
    return box;
  }

  toSvg(): string {
    // Named once for every text; the generic family is for browsers without the font installed,
    // whose sans-serif is narrower than DejaVu Sans, so labels laid out for it still fit.
    return `<svg xmlns="http://www.w3.org/2000/svg" width="${this.width}" height="${this.height}" viewBox="0 0 ${this.width} ${this.height}" font-family="'${CHART_FONT_FAMILY}', sans-serif">${this.parts.join('')}</svg>`;
  }
}
