// Line and bar charts as SVG: learning curves, success by split and task type. Labels are laid out
// with the chart font's widths, so that none overlaps another (PNG files: chart-png.ts).
import { textWidth } from './chart-font';
import { fitText, SvgCanvas, textBox } from './svg-canvas';

export interface LineSeries {
  name: string;
  points: readonly (readonly [number, number])[];
}

export interface LineChart {
  kind: 'line';
  title: string;
  xLabel: string;
  yLabel: string;
  series: readonly LineSeries[];
  /** Fixed y range (e.g. [0, 1] for rates); otherwise fitted to the data. */
  yRange?: readonly [number, number];
  /** Vertical markers, e.g. where each stage starts. */
  markers?: readonly { x: number; label: string }[];
}

export interface Bar {
  name: string;
  value: number;
  /** Optional interval drawn as an error bar. */
  low?: number;
  high?: number;
}

export interface BarChart {
  kind: 'bar';
  title: string;
  yLabel: string;
  groups: readonly { label: string; bars: readonly Bar[] }[];
  yRange?: readonly [number, number];
}

export type Chart = LineChart | BarChart;

export const palette = [
  '#1f77b4',
  '#d62728',
  '#2ca02c',
  '#ff7f0e',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#17becf',
];
const axisColor = '#333333';
const gridColor = '#e4e4e4';

function niceTicks(low: number, high: number, count = 5): number[] {
  const span = high - low || 1;
  const rough = span / count;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => span / s <= count) ?? magnitude * 10;
  const ticks: number[] = [];
  for (let t = Math.ceil(low / step) * step; t <= high + step * 1e-9; t += step)
    ticks.push(Number(t.toPrecision(10)));
  return ticks;
}

const formatTick = (value: number) =>
  Math.abs(value) >= 1000 || (Math.abs(value) < 0.01 && value !== 0)
    ? value.toExponential(1)
    : String(Number(value.toFixed(3)));

function extent(values: readonly number[], fixed?: readonly [number, number]): [number, number] {
  if (fixed !== undefined) return [fixed[0], fixed[1]];
  const finite = values.filter(Number.isFinite);
  if (finite.length === 0) return [0, 1];
  let low = Math.min(...finite);
  let high = Math.max(...finite);
  if (low === high) {
    low -= 0.5;
    high += 0.5;
  }
  const pad = (high - low) * 0.05;
  return [low - pad, high + pad];
}

/** Font sizes in pixels. */
const SIZE = { title: 14, label: 11, tick: 10, legend: 11, marker: 10 } as const;
const SWATCH = 10;
const LEGEND_ROW = 16;
const MARKER_ROW = 13;

/** A legend entry: a colour swatch and the name beside it, its baseline at `y`. */
function legendEntry(canvas: SvgCanvas, x: number, y: number, name: string, color: string): void {
  canvas.rect(x, y - SWATCH + 1, SWATCH, SWATCH, color);
  canvas.text(x + SWATCH + 5, y, name, axisColor, SIZE.legend);
}

/**
 * Draws `chart` on an SVG canvas of `width` × `height` pixels. Margins follow from the labels:
 * the left one from the widest y tick, a line chart's right one from its longest legend name (cut
 * short beyond a quarter of the width), a bar chart's bottom one from its legend's rows. Stage
 * markers label the top of the plot, on the left of their line near the right edge and a row
 * lower where they would touch a neighbour.
 */
export function drawChart(chart: Chart, width = 720, height = 360): SvgCanvas {
  const canvas = new SvgCanvas(width, height);
  canvas.text(width / 2, 20, fitText(chart.title, SIZE.title, width - 16), axisColor, SIZE.title, 'middle');

  const yValues =
    chart.kind === 'line'
      ? chart.series.flatMap((s) => s.points.map((p) => p[1]))
      : chart.groups
          .flatMap((g) => g.bars.flatMap((b) => [b.value, b.low ?? b.value, b.high ?? b.value]))
          .concat([0]);
  const [yLow, yHigh] = extent(yValues, chart.yRange);
  const yTicks = niceTicks(yLow, yHigh).map((tick) => ({ tick, label: formatTick(tick) }));
  const left = Math.max(40, 14 + Math.max(0, ...yTicks.map((t) => textWidth(t.label, SIZE.tick))));
  const top = 48;

  const legendNames =
    chart.kind === 'line' ? chart.series.map((s) => fitText(s.name, SIZE.legend, width / 4)) : [];
  const right =
    legendNames.length > 0
      ? 12 + SWATCH + 5 + Math.max(...legendNames.map((name) => textWidth(name, SIZE.legend))) + 8
      : 16;
  const barNames =
    chart.kind === 'bar' ? [...new Set(chart.groups.flatMap((g) => g.bars.map((b) => b.name)))] : [];
  // A bar chart's legend: entries left to right, wrapping into rows below the group labels.
  const barLegend: { name: string; color: string; x: number; row: number }[] = [];
  if (barNames.length > 1) {
    let x = left;
    let row = 0;
    barNames.forEach((barName, index) => {
      const name = fitText(barName, SIZE.legend, width / 3);
      const entryWidth = SWATCH + 5 + textWidth(name, SIZE.legend);
      if (x > left && x + entryWidth > width - 8) {
        x = left;
        row++;
      }
      barLegend.push({ name, color: palette[index % palette.length]!, x, row });
      x += entryWidth + 18;
    });
  }
  const legendRows = barLegend.length > 0 ? barLegend.at(-1)!.row + 1 : 0;
  const bottom = chart.kind === 'line' ? 44 : legendRows > 0 ? 44 + (legendRows - 1) * LEGEND_ROW : 26;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const plotRight = left + plotW;
  const plotBottom = top + plotH;

  const yScale = (v: number) => top + plotH - ((v - yLow) / (yHigh - yLow)) * plotH;
  for (const { tick, label } of yTicks) {
    const y = yScale(tick);
    canvas.line(left, y, plotRight, y, gridColor);
    canvas.text(left - 6, y + 3.5, label, axisColor, SIZE.tick, 'end');
  }
  canvas.text(8, top - 12, fitText(chart.yLabel, SIZE.label, width / 2), axisColor, SIZE.label);
  canvas.line(left, top, left, plotBottom, axisColor);
  canvas.line(left, plotBottom, plotRight, plotBottom, axisColor);

  if (chart.kind === 'line') {
    const xs = chart.series.flatMap((s) => s.points.map((p) => p[0]));
    const [xLow, xHigh] = xs.length > 0 ? [Math.min(...xs), Math.max(...xs)] : [0, 1];
    const xSpan = xHigh - xLow || 1;
    const xScale = (v: number) => left + ((v - xLow) / xSpan) * plotW;
    let lastTickRight = Number.NEGATIVE_INFINITY;
    for (const tick of niceTicks(xLow, xHigh)) {
      const x = xScale(tick);
      canvas.line(x, plotBottom, x, plotBottom + 4, axisColor);
      const box = textBox(formatTick(tick), x, plotBottom + 16, SIZE.tick, 'middle');
      if (box.left < lastTickRight + 6) continue;
      canvas.text(x, plotBottom + 16, box.text, axisColor, SIZE.tick, 'middle');
      lastTickRight = box.right;
    }
    canvas.text(
      left + plotW / 2,
      height - 8,
      fitText(chart.xLabel, SIZE.label, plotW),
      axisColor,
      SIZE.label,
      'middle',
    );

    const markers = [...(chart.markers ?? [])].sort((a, b) => a.x - b.x);
    for (const marker of markers) canvas.line(xScale(marker.x), top, xScale(marker.x), plotBottom, '#999999');
    chart.series.forEach((series, index) => {
      const color = palette[index % palette.length]!;
      const points = series.points
        .filter((p) => Number.isFinite(p[1]))
        .map((p) => [xScale(p[0]), yScale(p[1])] as const);
      if (points.length > 1) canvas.polyline(points, color, 2);
      for (const [x, y] of points) canvas.rect(x - 2, y - 2, 4, 4, color);
      legendEntry(canvas, plotRight + 12, top + 10 + index * LEGEND_ROW, legendNames[index]!, color);
    });
    // Marker labels go over the lines, in rows so that neighbours do not touch.
    const markerRows: { left: number; right: number }[][] = [];
    for (const marker of markers) {
      const x = xScale(marker.x);
      const label = fitText(marker.label, SIZE.marker, plotW - 6);
      const labelWidth = textWidth(label, SIZE.marker);
      const start = x + 3 + labelWidth <= plotRight - 2 ? x + 3 : Math.max(left + 3, x - 3 - labelWidth);
      let row = markerRows.findIndex((placed) =>
        placed.every((b) => b.right + 4 <= start || start + labelWidth + 4 <= b.left),
      );
      if (row === -1) row = markerRows.push([]) - 1;
      const box = canvas.text(
        start,
        top + 12 + row * MARKER_ROW,
        label,
        '#666666',
        SIZE.marker,
        'start',
        true,
      );
      markerRows[row]!.push(box);
    }
    return canvas;
  }

  const groupW = plotW / Math.max(1, chart.groups.length);
  chart.groups.forEach((group, g) => {
    const x0 = left + g * groupW;
    const barW = (groupW * 0.8) / Math.max(1, group.bars.length);
    group.bars.forEach((bar, b) => {
      const color = palette[barNames.indexOf(bar.name) % palette.length]!;
      const x = x0 + groupW * 0.1 + b * barW;
      const y = yScale(bar.value);
      canvas.rect(x + 1, Math.min(y, yScale(0)), barW - 2, Math.abs(yScale(0) - y), color);
      if (bar.low !== undefined && bar.high !== undefined) {
        const cx = x + barW / 2;
        canvas.line(cx, yScale(bar.low), cx, yScale(bar.high), axisColor);
        canvas.line(cx - 3, yScale(bar.low), cx + 3, yScale(bar.low), axisColor);
        canvas.line(cx - 3, yScale(bar.high), cx + 3, yScale(bar.high), axisColor);
      }
    });
    // Labels longer than their slot are cut short, so that neighbours stay readable.
    const label = fitText(group.label, SIZE.tick, groupW - 6);
    canvas.text(x0 + groupW / 2, plotBottom + 15, label, axisColor, SIZE.tick, 'middle');
  });
  for (const entry of barLegend)
    legendEntry(canvas, entry.x, plotBottom + 36 + entry.row * LEGEND_ROW, entry.name, entry.color);
  return canvas;
}

export function chartToSvg(chart: Chart, width = 720, height = 360): string {
  return drawChart(chart, width, height).toSvg();
}
