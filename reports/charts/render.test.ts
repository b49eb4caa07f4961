import { describe, expect, it } from 'vitest';
import { groupOf } from '../../test/fixtures/experiment-groups.js';
import { sampleAllExperiments, samplePuzzle } from '../../test/fixtures/sample-experiments.js';
import { experimentCharts } from './experiment-charts.js';
import { PNG_SCALE, renderPng, renderSvg } from './render.js';
import { textWidthPx } from './text-width.js';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const READABLE_WIDTH_PX = 800;

function svgSize(svg: string): { widthPx: number; heightPx: number } {
  const match = /<svg[^>]* width="(\d+)" height="(\d+)"/.exec(svg);
  return { widthPx: Number(match?.[1]), heightPx: Number(match?.[2]) };
}

describe('headless chart rendering', () => {
  it('draws every sample chart without a warning, with marks, no wider than 800 px', async () => {
    for (const results of sampleAllExperiments()) {
      for (const chart of experimentCharts(groupOf(results))) {
        const name = `${chart.experimentId}-${chart.def.id}`;
        const { svg, warnings } = await renderSvg(chart.spec, name);
        expect(warnings, name).toEqual([]);
        expect(svg, name).toMatch(/class="mark-(rect|symbol|line)[^"]*role-mark/);
        expect(svgSize(svg).widthPx, name).toBeLessThanOrEqual(READABLE_WIDTH_PX);
      }
    }
  });

  it('writes the labels of the figures into the SVG, escaped', async () => {
    const results = samplePuzzle();
    results.metrics = results.metrics.map((metric) => ({
      ...metric,
      labels: { ...metric.labels, design: metric.labels?.design === 'A' ? '<A&B>' : 'B' },
    }));
    const chart = experimentCharts(groupOf(results))[0];
    const { svg } = await renderSvg(chart?.spec ?? {}, 'escaped');
    expect(svg).toContain('&lt;A&amp;B&gt;');
    expect(svg).not.toContain('<A&B>');
  });

  it('turns an SVG into a PNG twice its size', async () => {
    const chart = experimentCharts(groupOf(samplePuzzle()))[0];
    const { svg } = await renderSvg(chart?.spec ?? {}, 'png');
    const png = renderPng(svg);
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    // IHDR holds the width and height as big-endian 32-bit integers at bytes 16 and 20.
    expect(png.readUInt32BE(16)).toBe(svgSize(svg).widthPx * PNG_SCALE);
    expect(png.readUInt32BE(20)).toBe(svgSize(svg).heightPx * PNG_SCALE);
  });

  it('reports a spec Vega-Lite cannot compile as a chart failure naming the chart', async () => {
    await expect(renderSvg({ mark: 'no-such-mark' }, 'broken-chart')).rejects.toMatchObject({
      code: 'CHART_FAILED',
      message: expect.stringContaining('broken-chart'),
    });
  });
});

describe('text widths for layout', () => {
  it('measure narrow letters narrower than wide ones and bold wider than regular', () => {
    expect(textWidthPx('iiii', 12, false)).toBeLessThan(textWidthPx('mmmm', 12, false));
    expect(textWidthPx('throughput', 12, true)).toBeGreaterThan(
      textWidthPx('throughput', 12, false),
    );
    expect(textWidthPx('abc', 24, false)).toBeCloseTo(2 * textWidthPx('abc', 12, false));
  });
});
