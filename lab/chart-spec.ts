/**
 * The declarative description of a chart, part of the results contract: an experiment declares
 * its charts beside its metrics, the context writes them into its results document, and reports
 * draw them from the document alone. A chart is one or more panels; a panel plots one quantity
 * (the last segment of metric names) of one experiment against a label or against another
 * quantity, coloured by label fields, optionally split into facets by one more label.
 *
 * Plain data, checked by a schema when read back: no rendering here (reports/charts/ does that).
 */
import { z } from 'zod';
import { assert } from '../storage/errors.js';
import type { MetricCatalog, MetricSpec } from './metric-catalog.js';

const labelAxisTypeSchema = z.enum(['nominal', 'ordinal', 'quantitative']);
export type LabelAxisType = z.infer<typeof labelAxisTypeSchema>;

/**
 * The x axis: a label field of the metrics, a second quantity paired by labels, or the metric
 * name itself (the generic chart: one bar per metric).
 */
const xSourceSchema = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('label'),
      field: z.string().min(1),
      type: labelAxisTypeSchema,
      title: z.string(),
    })
    .readonly(),
  z
    .object({ kind: z.literal('quantity'), quantity: z.string().min(1), title: z.string() })
    .readonly(),
  z.object({ kind: z.literal('name'), title: z.string() }).readonly(),
]);
export type XSource = z.infer<typeof xSourceSchema>;

const MARKS = ['bar', 'line', 'point'] as const;
export type PanelMark = (typeof MARKS)[number];

/** Which figure of a metric the panel plots; error bars (ci95) exist only for the median. */
const STATISTICS = ['median', 'p99'] as const;
export type Statistic = (typeof STATISTICS)[number];

const fields = z.array(z.string().min(1)).readonly();

const panelSchema = z
  .object({
    /** The quantity plotted; null plots every metric (the generic chart). */
    quantity: z.string().min(1).nullable(),
    /** Only metrics in this unit; null takes the unit of the first metric found. */
    unit: z.string().min(1).nullable(),
    statistic: z.enum(STATISTICS),
    /** What the y axis measures, without unit: the unit is appended from the figures. */
    yTitle: z.string(),
    x: xSourceSchema,
    /** Label fields joined into the colour series (`method · engine`); machines are added. */
    series: fields,
    seriesTitle: z.string(),
    facet: z
      .object({ field: z.string().min(1), title: z.string() })
      .readonly()
      .nullable(),
    /** Label field that orders points along a line when x is a quantity (e.g. `producers`). */
    order: z.string().min(1).nullable(),
    mark: z.enum(MARKS),
    /** The panel's own title, for charts of several panels; null for a single one. */
    title: z.string().nullable(),
    /** What legends and axes call a label value: `{ design: { A: 'A: slot file' } }`. */
    valueNames: z.record(z.string(), z.record(z.string(), z.string()).readonly()).readonly(),
    /** Label fields that choose a line's colour; null: the series fields. */
    colourBy: fields.nullable(),
    /** Label fields that choose a line's dash; null: the series fields (each series its own). */
    dashBy: fields.nullable(),
    /** Writes the `order` label's value beside each point (which point is 1 or 64 producers). */
    labelPoints: z.boolean(),
    /** Moves each series' points a little sideways within a category, so equal ones stay seen. */
    dodge: z.boolean(),
    /** A quantity paired by labels that each bar is a part of: its text reads `0 of 17,060`. */
    totalOf: z.string().min(1).nullable(),
  })
  .readonly();
export type PanelDef = z.infer<typeof panelSchema>;

export const chartSchema = z
  .object({
    /** Part of the file name: `<experiment>-<id>.svg`. */
    id: z.string().min(1),
    title: z.string().min(1),
    /** One line on how to read the chart, written under it; never the title again. */
    howToRead: z.string().min(1),
    panels: z.array(panelSchema).min(1).readonly(),
  })
  .readonly();
export type ChartDef = z.infer<typeof chartSchema>;

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

/** A panel of a declared quantity (lab/metric-catalog.ts): referenced, never spelled. */
export function plot(metric: MetricSpec, options: Omit<PanelOptions, 'quantity'>): PanelDef {
  return panel({ ...options, quantity: metric.quantity });
}

export function byQuantity(metric: MetricSpec, title: string): XSource {
  return { kind: 'quantity', quantity: metric.quantity, title };
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

function quantitiesOf(panelDef: PanelDef): string[] {
  const x = panelDef.x.kind === 'quantity' ? [panelDef.x.quantity] : [];
  const total = panelDef.totalOf === null ? [] : [panelDef.totalOf];
  return panelDef.quantity === null ? [...x, ...total] : [panelDef.quantity, ...x, ...total];
}

/** Throws when a chart of `experimentId` plots a quantity its catalog does not declare. */
export function assertChartsDeclared(
  experimentId: string,
  catalog: MetricCatalog,
  charts: readonly ChartDef[],
): void {
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
}
