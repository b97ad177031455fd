// The one font of every chart: DejaVu Sans, shipped by the `dejavu-fonts-ttf` package (Bitstream
// Vera licence, DejaVu changes public domain). The SVG names it, resvg renders PNGs with it alone,
// and layouts measure labels with its advance widths, read here from the font file itself.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

export const CHART_FONT_FAMILY = 'DejaVu Sans';

/** The path of the TTF file, resolved like a module so it works from `src/` and `dist/` alike. */
export const chartFontFile = (): string =>
  createRequire(import.meta.url).resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf');

interface FontMetrics {
  unitsPerEm: number;
  ascender: number;
  descender: number;
  /** Advance width in font units of the glyph for a code point (the missing glyph's if none). */
  advance: (codePoint: number) => number;
}

/** Reads the few TrueType tables a width needs: head, hhea, hmtx and the Unicode BMP cmap. */
function readMetrics(font: Buffer): FontMetrics {
  const tables = new Map<string, number>();
  for (let i = 0, count = font.readUInt16BE(4); i < count; i++) {
    const record = 12 + i * 16;
    tables.set(font.toString('latin1', record, record + 4), font.readUInt32BE(record + 8));
  }
  const table = (tag: string) => {
    const offset = tables.get(tag);
    if (offset === undefined) throw new Error(`chart font ${chartFontFile()} has no ${tag} table`);
    return offset;
  };
  const head = table('head');
  const hhea = table('hhea');
  const hmtx = table('hmtx');
  const hMetrics = font.readUInt16BE(hhea + 34);
  const cmap = table('cmap');
  let format4: number | undefined;
  for (let i = 0, count = font.readUInt16BE(cmap + 2); i < count; i++) {
    const record = cmap + 4 + i * 8;
    const [platform, encoding] = [font.readUInt16BE(record), font.readUInt16BE(record + 2)];
    const subtable = cmap + font.readUInt32BE(record + 4);
    if (((platform === 3 && encoding === 1) || platform === 0) && font.readUInt16BE(subtable) === 4)
      format4 = subtable;
  }
  if (format4 === undefined) throw new Error(`chart font ${chartFontFile()} has no Unicode BMP cmap`);
  const segments = font.readUInt16BE(format4 + 6) / 2;
  const ends = format4 + 14;
  const starts = ends + segments * 2 + 2;
  const deltas = starts + segments * 2;
  const rangeOffsets = deltas + segments * 2;
  const glyphOf = (c: number): number => {
    for (let s = 0; s < segments; s++) {
      if (font.readUInt16BE(ends + s * 2) < c) continue;
      const start = font.readUInt16BE(starts + s * 2);
      if (start > c) return 0;
      const delta = font.readInt16BE(deltas + s * 2);
      const rangeOffset = font.readUInt16BE(rangeOffsets + s * 2);
      if (rangeOffset === 0) return (c + delta) & 0xffff;
      const glyph = font.readUInt16BE(rangeOffsets + s * 2 + rangeOffset + (c - start) * 2);
      return glyph === 0 ? 0 : (glyph + delta) & 0xffff;
    }
    return 0;
  };
  const advances = new Map<number, number>();
  return {
    unitsPerEm: font.readUInt16BE(head + 18),
    ascender: font.readInt16BE(hhea + 4),
    descender: font.readInt16BE(hhea + 6),
    advance: (codePoint) => {
      let width = advances.get(codePoint);
      if (width === undefined) {
        const glyph = codePoint > 0xffff ? 0 : glyphOf(codePoint);
        width = font.readUInt16BE(hmtx + Math.min(glyph, hMetrics - 1) * 4);
        advances.set(codePoint, width);
      }
      return width;
    },
  };
}

let metrics: FontMetrics | undefined;
const fontMetrics = () => {
  metrics ??= readMetrics(readFileSync(chartFontFile()));
  return metrics;
};

/** Width in pixels of `text` at font size `size` (advances only; kerning only ever narrows it). */
export function textWidth(text: string, size: number): number {
  const font = fontMetrics();
  let units = 0;
  for (const char of text) units += font.advance(char.codePointAt(0)!);
  return (units / font.unitsPerEm) * size;
}

/** How far glyphs of font size `size` reach above and below the baseline, in pixels. */
export function textExtent(size: number): { ascent: number; descent: number } {
  const font = fontMetrics();
  return {
    ascent: (font.ascender / font.unitsPerEm) * size,
    descent: (-font.descender / font.unitsPerEm) * size,
  };
}
