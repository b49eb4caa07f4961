/**
 * The declarative description of a chart. A chart is one or more panels; a panel plots one
 * quantity (the last segment of metric names) of one experiment against a label or against
 * another quantity, coloured by label fields, optionally split into facets by one more label.
 */

export type LabelAxisType = 'nominal' | 'ordinal' | 'quantitative';

/**
 * The x axis: a label field of the metrics, a second quantity paired by labels, or the metric
 * name itself (the generic chart: one bar per metric).
 */
export type XSource =
  | { readonly kind: 'label'; readonly field: string; readonly type: LabelAxisType;
      readonly title: string }
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
}

export interface ChartDef {
  /** Part of the file name: `<experiment>-<id>.svg`. */
  readonly id: string;
  readonly title: string;
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
    ...options,
  };
}

export function byLabel(field: string, title: string, type: LabelAxisType = 'ordinal'): XSource {
  return { kind: 'label', field, type, title };
}

export function byQuantity(quantity: string, title: string): XSource {
  return { kind: 'quantity', quantity, title };
}

export function chart(id: string, title: string, ...panels: PanelDef[]): ChartDef {
  return { id, title, panels };
}
