// PNG files of the charts: the SVG charts rendered by resvg with the bundled chart font and no
// system fonts, so that a chart's PNG comes out the same on every machine.
import { Resvg } from '@resvg/resvg-js';
import { CHART_FONT_FAMILY, chartFontFile } from './chart-font';
import { type Chart, chartToSvg } from './charts';

/** Renders SVG markup at its own size as a PNG file. */
export function svgToPng(svg: string): Buffer {
  const resvg = new Resvg(svg, {
    font: {
      loadSystemFonts: false,
      fontFiles: [chartFontFile()],
      defaultFontFamily: CHART_FONT_FAMILY,
      sansSerifFamily: CHART_FONT_FAMILY,
    },
    fitTo: { mode: 'original' },
    logLevel: 'off',
  });
  return resvg.render().asPng();
}

export function chartToPng(chart: Chart, width = 720, height = 360): Buffer {
  return svgToPng(chartToSvg(chart, width, height));
}
