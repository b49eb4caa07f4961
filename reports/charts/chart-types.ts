/**
 * The declarative description of a chart. A chart is one or more panels; a panel plots one
 * quantity (the last segment of metric names) of one experiment against a label or against
 * another quantity, coloured by label fields, optionally split into facets by one more label.
 */
import { type MetricCatalog, type MetricSpec, experimentOf } from '../../lab/metric-catalog.js';
import { assert } from '../../storage/errors.js';

export type LabelAxisType = 'nominal' | 'ordinal' | 'quantitative';

/**
 * The x axis: a label field of the metrics, a second quantity paired by labels, or the metric
 * name itself (the generic chart: one bar per metric).
 */
export type XSource =
  | {
      readonly kind: 'label';
      readonly field: string;
      readonly type: LabelAxisType;
      readonly title: string;
    }
  | { readonly kind: 'quantity'; readonly quantity: string; readonly title: string }
  | { readonly kind: 'name'; readonly title: string };

export type PanelMark = 'bar' | 'line' | 'point';

/** Which figure of a metric the panel plots; error bars (ci95) exist only for the median. */
export type Statistic = 'median' | 'p99';

export interface PanelDef {
  /** The quantity plotted; null plots every metric (the generic chart). */
  readonly quantity: string | null;
  /** Only metrics in this unit; null takes the unit of the first metric found. */
  readonly unit: string | null;
  readonly statistic: Statistic;
  /** What the y axis measures, without unit: the unit is appended from the figures. */
  readonly yTitle: string;
  readonly x: XSource;
  /** Label fields joined into the colour series (`method · engine`); machines are added. */
  readonly series: readonly string[];
  readonly seriesTitle: string;
  readonly facet: { readonly field: string; readonly title: string } | null;
  /** Label field that orders points along a line when x is a quantity (e.g. `producers`). */
  readonly order: string | null;
  readonly mark: PanelMark;
  /** The panel's own title, for charts of several panels; null for a single one. */
  readonly title: string | null;
  /** What legends and axes call a label value: `{ design: { A: 'A: slot file' } }`. */
  readonly valueNames: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** Label fields that choose a line's colour; null: the series fields. */
  readonly colourBy: readonly string[] | null;
  /** Label fields that choose a line's dash; null: the series fields (each series its own). */
  readonly dashBy: readonly string[] | null;
  /** Writes the `order` label's value beside each point (which point is 1 or 64 producers). */
  readonly labelPoints: boolean;
  /** Moves each series' points a little sideways within a category, so equal ones stay seen. */
  readonly dodge: boolean;
  /** A quantity paired by labels that each bar is a part of: its text reads `0 of 17,060`. */
  readonly totalOf: string | null;
}

export interface ChartDef {
  /** Part of the file name: `<experiment>-<id>.svg`. */
  readonly id: string;
  readonly title: string;
  /** One line on how to read the chart, written under it; never the title again. */
  readonly howToRead: string;
  readonly panels: readonly PanelDef[];
}

type PanelOptions = Pick<PanelDef, 'quantity' | 'yTitle' | 'x' | 'mark'> &
  Partial<Omit<PanelDef, 'quantity' | 'yTitle' | 'x' | 'mark'>>;

/** A panel with defaults: the median, no series, no facet, no line order. */
export function panel(options: PanelOptions): PanelDef {
  const series = options.series ?? [];
  return {
    statistic: 'median',
    unit: null,
    series,
    seriesTitle: series.join(' · '),
    facet: null,
    order: null,
    title: null,
    valueNames: {},
    colourBy: null,
    dashBy: null,
    labelPoints: false,
    dodge: false,
    totalOf: null,
    ...options,
  };
}

export function byLabel(field: string, title: string, type: LabelAxisType = 'ordinal'): XSource {
  return { kind: 'label', field, type, title };
}

/** A panel of a declared quantity (experiments/metrics/): the table references, never spells. */
export function plot(metric: MetricSpec, options: Omit<PanelOptions, 'quantity'>): PanelDef {
  return panel({ ...options, quantity: metric.quantity });
}

export function byQuantity(metric: MetricSpec, title: string): XSource {
  return { kind: 'quantity', quantity: metric.quantity, title };
}

/**
 * One experiment's charts, keyed by the experiment its catalog declares; every quantity plotted
 * must be one of the catalog's.
 */
export function chartsOf(
  catalog: MetricCatalog,
  charts: readonly ChartDef[],
): [string, readonly ChartDef[]] {
  const experimentId = experimentOf(catalog);
  const declared = new Set(Object.values(catalog).map((spec) => spec.quantity));
  for (const def of charts) {
    for (const quantity of def.panels.flatMap(quantitiesOf)) {
      assert(
        declared.has(quantity),
        `chart ${experimentId}-${def.id} plots ${quantity}, ` +
          `which ${experimentId} does not declare`,
      );
    }
  }
  return [experimentId, charts];
}

function quantitiesOf(panelDef: PanelDef): string[] {
  const x = panelDef.x.kind === 'quantity' ? [panelDef.x.quantity] : [];
  const total = panelDef.totalOf === null ? [] : [panelDef.totalOf];
  return panelDef.quantity === null ? [...x, ...total] : [panelDef.quantity, ...x, ...total];
}

export function chart(
  id: string,
  title: string,
  howToRead: string,
  ...panels: PanelDef[]
): ChartDef {
  assert(
    howToRead.trim() !== '' && howToRead !== title,
    `chart ${id}: a line on how to read it, not the title again`,
  );
  return { id, title, howToRead, panels };
}
