import { describe, expect, it } from 'vitest';
import {
  TREND_SCHEMA,
  type TrendDocument,
  type TrendSeries,
} from '../../lab/history/trend-document.js';
import { renderSvg } from './render.js';
import { trendCharts } from './trend-chart.js';

const READABLE_WIDTH_PX = 800;

function series(metric: string, machine: string, medians: readonly number[]): TrendSeries {
  return {
    experimentId: 'puzzle',
    metric,
    unit: 'ratio',
    direction: 'higher',
    labels: {},
    series: machine,
    points: medians.map((median, i) => ({
      commit: `${i}`.repeat(40),
      dirty: i === 2,
      startedAt: new Date(Date.UTC(2026, 10, 1, i)).toISOString(),
      median,
      low: median * 0.97,
      high: median * 1.03,
      rounds: 6,
    })),
  };
}

const trend: TrendDocument = {
  schema: TREND_SCHEMA,
  series: [
    series('puzzle.always.ratioBA', '3f9a1c2b7d4e, quick', [2, 2.1, 1.9, 1.6]),
    series('puzzle.none.ratioBA', '3f9a1c2b7d4e, quick', [40, 41, 39, 42]),
    series('puzzle.always.ratioBA', '7c1d00aa11bb, quick', [2.4, 2.5]),
    series('puzzle.A.always.fsyncsPerMsg', '3f9a1c2b7d4e, quick', [1, 1, 1, 1]),
    { ...series('other.ratio', 'x', [1]), experimentId: 'other' },
  ],
};

describe('trend charts', () => {
  it('draws a chart per quantity of the experiment, a panel per metric, commits in order', () => {
    const charts = trendCharts(trend, 'puzzle');
    expect(charts.map((chart) => chart.chartId)).toEqual(['trend-ratioBA', 'trend-fsyncsPerMsg']);
    const ratio = charts[0]!.spec as {
      data: { values: { panel: string; series: string; commit: string }[] };
      spec: { encoding: { x: { sort: string[] } } };
    };
    expect(new Set(ratio.data.values.map((row) => row.panel))).toEqual(
      new Set([
        'puzzle.always.ratioBA (ratio, higher is better)',
        'puzzle.none.ratioBA (ratio, higher is better)',
      ]),
    );
    expect(ratio.spec.encoding.x.sort).toEqual(['0000000', '1111111', '2222222*', '3333333']);
    expect(trendCharts(trend, 'none')).toEqual([]);
  });

  it('renders every chart without a warning, no wider than 800 px', async () => {
    for (const chart of trendCharts(trend, 'puzzle')) {
      const { svg, warnings } = await renderSvg(chart.spec, chart.chartId);
      expect(warnings, chart.chartId).toEqual([]);
      expect(svg).toMatch(/class="mark-line[^"]*role-mark/);
      expect(Number(/<svg[^>]* width="(\d+)"/.exec(svg)?.[1])).toBeLessThanOrEqual(
        READABLE_WIDTH_PX,
      );
    }
  });
});
