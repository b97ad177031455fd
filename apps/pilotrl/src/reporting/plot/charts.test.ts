import { Resvg } from '@resvg/resvg-js';
import { describe, expect, it } from 'vitest';
import { CHART_FONT_FAMILY, chartFontFile, textWidth } from './chart-font';
import { type Chart, chartToSvg, drawChart } from './charts';
import type { TextBox } from './svg-canvas';

const steps = (f: (step: number) => number) =>
  Array.from({ length: 18 }, (_, i) => [i + 1, f(i + 1)] as const);

/** A losses chart as a curriculum run draws it: stage markers crowded at the right edge. */
const losses: Chart = {
  kind: 'line',
  title: 'Losses',
  xLabel: 'iteration',
  yLabel: 'loss',
  series: [
    { name: 'losses/sft_loss', points: steps((s) => 3 / s) },
    { name: 'losses/policy_loss', points: steps((s) => 0.1 * Math.sin(s)) },
    { name: 'reward (weighted sum) of every component we could think of', points: steps((s) => s / 10) },
  ],
  markers: [
    { x: 1, label: 'sft' },
    { x: 13, label: 'follow' },
    { x: 15, label: 'plan' },
    { x: 17, label: 'joint' },
    { x: 17.5, label: 'joint-again' },
  ],
};

const taskTypes: Chart = {
  kind: 'bar',
  title: 'Final success by split and task type (95% CI)',
  yLabel: 'success',
  yRange: [0, 1],
  groups: ['all', 'pick_and_place_simple', 'pick_clean_then_place_in_recep', 'look_at_obj_in_light'].map(
    (label, i) => ({
      label,
      bars: ['valid_seen', 'valid_unseen', 'a_third_split_with_a_long_name', 'and_a_fourth_one_as_well'].map(
        (name) => ({ name, value: 0.2 + i / 10, low: 0.1, high: 0.6 }),
      ),
    }),
  ),
};

const overlap = (a: TextBox, b: TextBox) =>
  a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

describe('chart layout', () => {
  it.each([
    ['losses', losses, 720, 360],
    ['task types', taskTypes, 720, 360],
    ['task types, narrow', taskTypes, 420, 300],
  ] as const)(
    'keeps every label of the %s chart clear of the others and inside the image',
    (_, chart, w, h) => {
      const { texts } = drawChart(chart, w, h);
      const clashes = texts.flatMap((a, i) =>
        texts.slice(i + 1).flatMap((b) => (overlap(a, b) ? [`"${a.text}" / "${b.text}"`] : [])),
      );
      expect(clashes).toEqual([]);
      for (const box of texts) {
        expect(box.left, box.text).toBeGreaterThanOrEqual(0);
        expect(box.right, box.text).toBeLessThanOrEqual(w);
        expect(box.top, box.text).toBeGreaterThanOrEqual(0);
        expect(box.bottom, box.text).toBeLessThanOrEqual(h);
      }
    },
  );

  it('cuts a long legend name short and keeps the short ones whole', () => {
    const names = drawChart(losses).texts.map((t) => t.text);
    expect(names).toContain('losses/policy_loss');
    const cut = names.find((name) => name.startsWith('reward (weighted sum)'));
    expect(cut).toMatch(/…$/);
    expect(textWidth(cut!, 11)).toBeLessThanOrEqual(720 / 4);
  });

  it('names the bundled font and escapes text', () => {
    const svg = chartToSvg({ ...losses, title: '<b>&' });
    expect(svg).toContain(`font-family="'${CHART_FONT_FAMILY}', sans-serif"`);
    expect(svg).toContain('&lt;b&gt;&amp;');
    expect(svg).toContain('>losses/sft_loss</text>');
  });

  it('measures text as resvg draws it with the bundled font', () => {
    for (const text of ['iteration', 'losses/policy_loss', 'WWW mmm', '0.25']) {
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="40"><text x="10" y="30" font-size="20" font-family="${CHART_FONT_FAMILY}">${text}</text></svg>`;
      const inked = new Resvg(svg, {
        font: { loadSystemFonts: false, fontFiles: [chartFontFile()] },
      }).getBBox();
      // The ink lies within the advances, less the side bearings of the first and last glyph.
      expect(inked!.width, text).toBeLessThanOrEqual(textWidth(text, 20));
      expect(inked!.width, text).toBeGreaterThan(textWidth(text, 20) - 6);
    }
  });
});
