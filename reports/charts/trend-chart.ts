/**
 * Trend charts from a results history (lab/history/trend-document.ts), for `loglab report
 * --history`: per experiment, one chart per quantity (the last part of metric names) and in it
 * one small panel per gated metric. Runs go left to right in the order they started, each named
 * by its commit; a point is a run's median, a rule its lowest to highest round; one colour per
 * machine (and set of parameters). Panels keep their own y scale: a panel shows how its metric
 * moved, not how it compares with its neighbours.
 */
import type { TrendDocument, TrendSeries } from '../../lab/history/trend-document.js';
import { CHART_CONFIG, SERIES_COLOURS, type VegaLiteSpec } from './vega-lite-spec.js';

export interface TrendChart {
  readonly chartId: string;
  readonly title: string;
  readonly howToRead: string;
  readonly spec: VegaLiteSpec;
}

/** Shown commits: git's default abbreviation. */
const COMMIT_SHOWN_CHARS = 7;
const PANEL_WIDTH_PX = 230;
const PANEL_HEIGHT_PX = 120;
const PANEL_COLUMNS = 3;

const HOW_TO_READ =
  'One panel per gated metric, its runs left to right in the order they started, named by ' +
  'commit (* a dirty tree): the point is the run’s median, the rule its lowest to highest round, ' +
  'one colour per machine. The panel’s title says which way is better.';

interface TrendRow {
  readonly panel: string;
  readonly series: string;
  readonly commit: string;
  readonly median: number;
  readonly low: number;
  readonly high: number;
}

const quantityOf = (metric: string) => metric.slice(metric.lastIndexOf('.') + 1);
const commitLabel = (commit: string, dirty: boolean | null) =>
  `${commit.slice(0, COMMIT_SHOWN_CHARS)}${dirty === true ? '*' : ''}`;

function panelTitle(series: TrendSeries): string {
  const better = series.direction === 'informational' ? '' : `, ${series.direction} is better`;
  return `${series.metric} (${series.unit}${better})`;
}

function rowsOf(series: readonly TrendSeries[]): TrendRow[] {
  return series.flatMap((one) =>
    one.points.map((point) => ({
      panel: panelTitle(one),
      series: one.series,
      commit: commitLabel(point.commit, point.dirty),
      median: point.median,
      low: point.low,
      high: point.high,
    })),
  );
}

/** Commits in the order their first run started, across every series shown. */
function commitOrder(series: readonly TrendSeries[]): string[] {
  const points = series
    .flatMap((one) => one.points)
    .sort((a, b) => (a.startedAt < b.startedAt ? -1 : a.startedAt > b.startedAt ? 1 : 0));
  return [...new Set(points.map((point) => commitLabel(point.commit, point.dirty)))];
}

function chartSpec(quantity: string, series: readonly TrendSeries[]): VegaLiteSpec {
  const machines = [...new Set(series.map((one) => one.series))];
  const x = {
    field: 'commit',
    type: 'ordinal',
    sort: commitOrder(series),
    title: 'commit',
    axis: { labelAngle: -45 },
  };
  const y = { type: 'quantitative', scale: { zero: false }, title: null, axis: { format: ',~r' } };
  const color = {
    field: 'series',
    type: 'nominal',
    title: 'machine',
    scale: { domain: machines, range: SERIES_COLOURS.slice(0, machines.length) },
    legend: machines.length > 1 ? {} : null,
  };
  return {
    title: { text: `Across commits: ${quantity}` },
    config: CHART_CONFIG,
    data: { values: rowsOf(series) },
    facet: { field: 'panel', type: 'nominal', title: null, header: { labelLimit: 300 } },
    columns: Math.min(PANEL_COLUMNS, new Set(series.map(panelTitle)).size),
    resolve: { scale: { y: 'independent' } },
    spec: {
      width: PANEL_WIDTH_PX,
      height: PANEL_HEIGHT_PX,
      encoding: { x, color },
      layer: [
        { mark: { type: 'rule' }, encoding: { y: { ...y, field: 'low' }, y2: { field: 'high' } } },
        { mark: { type: 'line', point: true }, encoding: { y: { ...y, field: 'median' } } },
      ],
    },
  };
}

/** The trend charts of one experiment, a chart per quantity; none when the history has none. */
export function trendCharts(trend: TrendDocument, experimentId: string): TrendChart[] {
  const byQuantity = new Map<string, TrendSeries[]>();
  for (const series of trend.series.filter((one) => one.experimentId === experimentId)) {
    const quantity = quantityOf(series.metric);
    const same = byQuantity.get(quantity) ?? [];
    same.push(series);
    byQuantity.set(quantity, same);
  }
  return [...byQuantity].map(([quantity, series]) => ({
    chartId: `trend-${quantity}`,
    title: `${experimentId} across commits: ${quantity}`,
    howToRead: HOW_TO_READ,
    spec: chartSpec(quantity, series),
  }));
}
