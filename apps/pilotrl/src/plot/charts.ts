// Line and bar charts drawn onto any Surface: learning curves, success by split and task type.
import { RasterSurface, type Surface, SvgSurface } from './surface';

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

/** Draws `chart` onto `surface`. */
export function drawChart(surface: Surface, chart: Chart): void {
  const left = 56;
  const right = chart.kind === 'line' ? 150 : 20;
  const top = 30;
  const bottom = 40;
  const plotW = surface.width - left - right;
  const plotH = surface.height - top - bottom;
  surface.text(surface.width / 2, 18, chart.title, axisColor, 'middle', 1.4);

  const yValues =
    chart.kind === 'line'
      ? chart.series.flatMap((s) => s.points.map((p) => p[1]))
      : chart.groups
          .flatMap((g) => g.bars.flatMap((b) => [b.value, b.low ?? b.value, b.high ?? b.value]))
          .concat([0]);
  const [yLow, yHigh] = extent(yValues, chart.yRange);
  const yScale = (v: number) => top + plotH - ((v - yLow) / (yHigh - yLow)) * plotH;
  for (const tick of niceTicks(yLow, yHigh)) {
    const y = yScale(tick);
    surface.line(left, y, left + plotW, y, gridColor);
    surface.text(left - 6, y + 3.5, formatTick(tick), axisColor, 'end');
  }
  surface.text(8, top - 8, chart.yLabel, axisColor, 'start');
  surface.line(left, top, left, top + plotH, axisColor);
  surface.line(left, top + plotH, left + plotW, top + plotH, axisColor);

  if (chart.kind === 'line') {
    const xs = chart.series.flatMap((s) => s.points.map((p) => p[0]));
    const [xLow, xHigh] = xs.length > 0 ? [Math.min(...xs), Math.max(...xs)] : [0, 1];
    const xSpan = xHigh - xLow || 1;
    const xScale = (v: number) => left + ((v - xLow) / xSpan) * plotW;
    for (const tick of niceTicks(xLow, xHigh)) {
      surface.line(xScale(tick), top + plotH, xScale(tick), top + plotH + 4, axisColor);
      surface.text(xScale(tick), top + plotH + 14, formatTick(tick), axisColor, 'middle');
    }
    surface.text(left + plotW / 2, surface.height - 8, chart.xLabel, axisColor, 'middle');
    for (const marker of chart.markers ?? []) {
      const x = xScale(marker.x);
      surface.line(x, top, x, top + plotH, '#999999');
      surface.text(x + 3, top + 9, marker.label, '#777777');
    }
    chart.series.forEach((series, index) => {
      const color = palette[index % palette.length]!;
      const points = series.points.filter((p) => Number.isFinite(p[1]));
      for (let i = 1; i < points.length; i++) {
        const [a, b] = [points[i - 1]!, points[i]!];
        surface.line(xScale(a[0]), yScale(a[1]), xScale(b[0]), yScale(b[1]), color, 2);
      }
      for (const p of points) surface.rect(xScale(p[0]) - 2, yScale(p[1]) - 2, 4, 4, color);
      const legendY = top + 12 + index * 14;
      surface.rect(left + plotW + 12, legendY - 7, 8, 8, color);
      surface.text(left + plotW + 24, legendY, series.name, axisColor);
    });
    return;
  }

  const groupW = plotW / Math.max(1, chart.groups.length);
  const names = [...new Set(chart.groups.flatMap((g) => g.bars.map((b) => b.name)))];
  chart.groups.forEach((group, g) => {
    const x0 = left + g * groupW;
    const barW = (groupW * 0.8) / Math.max(1, group.bars.length);
    group.bars.forEach((bar, b) => {
      const color = palette[names.indexOf(bar.name) % palette.length]!;
      const x = x0 + groupW * 0.1 + b * barW;
      const y = yScale(bar.value);
      surface.rect(x + 1, Math.min(y, yScale(0)), barW - 2, Math.abs(yScale(0) - y), color);
      if (bar.low !== undefined && bar.high !== undefined) {
        const cx = x + barW / 2;
        surface.line(cx, yScale(bar.low), cx, yScale(bar.high), axisColor);
        surface.line(cx - 3, yScale(bar.low), cx + 3, yScale(bar.low), axisColor);
        surface.line(cx - 3, yScale(bar.high), cx + 3, yScale(bar.high), axisColor);
      }
    });
    // Labels longer than their slot are shortened, so that neighbours stay readable.
    const fits = Math.max(3, Math.floor(groupW / 6) - 1);
    const label = group.label.length > fits ? `${group.label.slice(0, fits - 2)}..` : group.label;
    surface.text(x0 + groupW / 2, top + plotH + 14, label, axisColor, 'middle');
  });
  if (names.length > 1) {
    names.forEach((name, index) => {
      const x = left + 8 + index * 110;
      surface.rect(x, surface.height - 15, 8, 8, palette[index % palette.length]!);
      surface.text(x + 12, surface.height - 8, name, axisColor);
    });
  }
}

export function chartToPng(chart: Chart, width = 720, height = 360): Buffer {
  const surface = new RasterSurface(width, height);
  drawChart(surface, chart);
  return surface.toPng();
}

export function chartToSvg(chart: Chart, width = 720, height = 360): string {
  const surface = new SvgSurface(width, height);
  drawChart(surface, chart);
  return surface.toSvg();
}
