/**
 * The points one panel plots, taken from every run of an experiment: measured figures and the
 * model predictions of the same names, each with its x, series (machine and label fields) and
 * facet, converted to the display unit that suits the panel.
 */
import type { Metric, Prediction, Results } from '../../lab/results.js';
import { predictionLabels, quantityOf, type LabelValue, type Labels } from '../figures.js';
import type { ExperimentGroup, Run } from '../runs.js';
import { formatFigure } from '../../lab/format.js';
import { displayUnitFor, formatLabelValue } from '../units.js';
import type { PanelDef } from '../../lab/chart-spec.js';

export const MEASURED_MODEL = 'measured';

export interface ChartPoint {
  readonly x: string | number;
  readonly y: number;
  readonly yLow: number | null;
  readonly yHigh: number | null;
  readonly xLow: number | null;
  readonly xHigh: number | null;
  readonly series: string;
  /** The colour and dash groups: the series, unless the panel splits them by other fields. */
  readonly colour: string;
  readonly dash: string;
  /** Text written beside the mark (`64`, `0 of 17,060`); null writes none. */
  readonly text: string | null;
  readonly facet: string | null;
  /** Position along a line when x is a quantity; null otherwise. */
  readonly order: number | null;
  /** `measured`, or the model that predicted the figure (`hdd:exos-x20`). */
  readonly model: string;
  readonly predicted: boolean;
}

export interface PanelData {
  readonly def: PanelDef;
  readonly points: readonly ChartPoint[];
  readonly yUnit: string;
  /** Display unit of x when x is a quantity. */
  readonly xUnit: string | null;
  /** Category order of a nominal or ordinal x: numbers ascending, other values as they came. */
  readonly xSort: readonly string[];
  readonly seriesSort: readonly string[];
  readonly colourSort: readonly string[];
  readonly dashSort: readonly string[];
  readonly facetSort: readonly string[];
  /** Whether colour carries meaning (label series or several machines). */
  readonly hasSeries: boolean;
  /** Legend title of the colour: the series fields, led by `machine` when there are several. */
  readonly seriesTitle: string;
  /** Legend titles of colour and dash: the series title when they follow the series. */
  readonly colourTitle: string;
  readonly dashTitle: string;
  readonly models: readonly string[];
}

/** A figure before unit conversion: a metric or a prediction, reduced to what a panel needs. */
interface Figure {
  readonly name: string;
  readonly unit: string;
  readonly value: number;
  readonly ci95: readonly [number, number] | null;
  readonly labels: Labels;
}

interface RawPoint {
  readonly y: Figure;
  readonly x: Figure | LabelValue;
  readonly run: Run;
  readonly model: string;
  /** The figure of the panel's `totalOf` quantity this one is a part of. */
  readonly total: Figure | null;
}

function measuredFigure(metric: Metric, def: PanelDef): Figure | null {
  const value = def.statistic === 'median' ? metric.median : metric.p99;
  if (value === undefined) return null;
  const ci95 = def.statistic === 'median' ? (metric.ci95 ?? null) : null;
  return { name: metric.name, unit: metric.unit, value, ci95, labels: metric.labels ?? {} };
}

function predictedFigure(results: Results, prediction: Prediction): Figure {
  return {
    name: prediction.name,
    unit: prediction.unit,
    value: prediction.value,
    ci95: null,
    labels: predictionLabels(results, prediction),
  };
}

function labelsWithin(inner: Labels, outer: Labels): boolean {
  return Object.entries(inner).every(([key, value]) => outer[key] === value);
}

/** The x of a figure: its label, its name, or the paired figure of the x quantity. */
function xOf(
  def: PanelDef,
  figure: Figure,
  partners: readonly Figure[],
): Figure | LabelValue | null {
  if (def.x.kind === 'name') return figure.name;
  if (def.x.kind === 'label') return figure.labels[def.x.field] ?? null;
  const wanted = def.x.quantity;
  return (
    partners.find(
      (partner) =>
        quantityOf(partner.name) === wanted && labelsWithin(partner.labels, figure.labels),
    ) ?? null
  );
}

function totalOf(def: PanelDef, figure: Figure, partners: readonly Figure[]): Figure | null {
  const wanted = def.totalOf;
  if (wanted === null) return null;
  return (
    partners.find(
      (partner) =>
        quantityOf(partner.name) === wanted && labelsWithin(partner.labels, figure.labels),
    ) ?? null
  );
}

function selects(def: PanelDef, figure: Figure): boolean {
  return def.quantity === null || quantityOf(figure.name) === def.quantity;
}

function rawPoints(def: PanelDef, group: ExperimentGroup): RawPoint[] {
  const points: RawPoint[] = [];
  for (const run of group.runs) {
    const measured = run.results.metrics
      .map((metric) => measuredFigure(metric, def))
      .filter((figure): figure is Figure => figure !== null);
    const partners = run.results.metrics
      .map((metric) => measuredFigure(metric, { ...def, statistic: 'median' }))
      .filter((figure): figure is Figure => figure !== null);
    for (const y of measured.filter((figure) => selects(def, figure))) {
      const x = xOf(def, y, partners);
      const total = totalOf(def, y, partners);
      if (x !== null) points.push({ y, x, run, model: MEASURED_MODEL, total });
    }
    // Predictions estimate typical figures, so they sit beside medians only.
    if (def.statistic !== 'median') continue;
    const models = [...new Set(run.results.predictions.map((prediction) => prediction.model))];
    for (const model of models) {
      const predicted = run.results.predictions
        .filter((prediction) => prediction.model === model)
        .map((prediction) => predictedFigure(run.results, prediction));
      for (const y of predicted.filter((figure) => selects(def, figure))) {
        const x = xOf(def, y, predicted);
        if (x !== null) points.push({ y, x, run, model, total: null });
      }
    }
  }
  return points;
}

interface Category {
  readonly raw: LabelValue;
  readonly shown: string;
}

/** Shown values in reading order: ascending when every raw value is a number, else as found. */
function categoryOrder(categories: readonly Category[]): readonly string[] {
  const numeric = categories.every((category) => typeof category.raw === 'number');
  const ordered = numeric
    ? [...categories].sort((a, b) => Number(a.raw) - Number(b.raw))
    : categories;
  return [...new Set(ordered.map((category) => category.shown))];
}

/** A label value as legends show it: the panel's name for it, else the formatted value. */
function shownValue(def: PanelDef, field: string, value: LabelValue): string {
  return def.valueNames[field]?.[String(value)] ?? formatLabelValue(field, value);
}

function groupOf(
  def: PanelDef,
  fields: readonly string[],
  point: RawPoint,
  multiMachine: boolean,
): string {
  // With a machine before each entry the legend is long enough; its title names the values.
  const parts = fields
    .filter((field) => point.y.labels[field] !== undefined)
    .map((field) =>
      multiMachine
        ? formatLabelValue(field, point.y.labels[field] ?? '')
        : shownValue(def, field, point.y.labels[field] ?? ''),
    );
  return (multiMachine ? [point.run.series, ...parts] : parts).join(' · ');
}

/** The point's own text: its place along the line, or its part of a total. */
function textOf(def: PanelDef, point: RawPoint): string | null {
  if (def.labelPoints && def.order !== null) {
    const value = point.y.labels[def.order];
    return value === undefined ? null : formatLabelValue(def.order, value);
  }
  if (point.total === null) return null;
  return `${formatFigure(point.y.value)} of ${formatFigure(point.total.value)}`;
}

function facetOf(def: PanelDef, point: RawPoint): Category | null {
  if (def.facet === null) return null;
  const raw = point.y.labels[def.facet.field] ?? '—';
  return { raw, shown: formatLabelValue(def.facet.field, raw) };
}

type Range = readonly [number, number];

function scaled(range: Range | null, divisor: number, end: 0 | 1): number | null {
  return range === null ? null : range[end] / divisor;
}

interface Scales {
  readonly yDivisor: number;
  readonly xDivisor: number;
  readonly multiMachine: boolean;
}

function toChartPoint(def: PanelDef, point: RawPoint, scales: Scales): ChartPoint | null {
  const xFigure = typeof point.x === 'object' ? point.x : null;
  const xLabel = typeof point.x === 'object' ? null : point.x;
  let x: string | number;
  if (xFigure !== null) x = xFigure.value / scales.xDivisor;
  else if (def.x.kind === 'label' && def.x.type === 'quantitative') {
    if (typeof xLabel !== 'number') return null;
    x = xLabel;
  } else x = def.x.kind === 'label' ? formatLabelValue(def.x.field, xLabel ?? '') : String(xLabel);
  const orderValue = def.order === null ? undefined : point.y.labels[def.order];
  return {
    x,
    y: point.y.value / scales.yDivisor,
    yLow: scaled(point.y.ci95, scales.yDivisor, 0),
    yHigh: scaled(point.y.ci95, scales.yDivisor, 1),
    xLow: scaled(xFigure?.ci95 ?? null, scales.xDivisor, 0),
    xHigh: scaled(xFigure?.ci95 ?? null, scales.xDivisor, 1),
    series: groupOf(def, def.series, point, scales.multiMachine),
    colour: groupOf(def, def.colourBy ?? def.series, point, scales.multiMachine),
    dash: groupOf(def, def.dashBy ?? def.series, point, def.dashBy === null && scales.multiMachine),
    text: textOf(def, point),
    facet: facetOf(def, point)?.shown ?? null,
    order: typeof orderValue === 'number' ? orderValue : null,
    model: point.model,
    predicted: point.model !== MEASURED_MODEL,
  };
}

function xCategories(def: PanelDef, points: readonly RawPoint[]): readonly Category[] {
  if (def.x.kind === 'quantity' || (def.x.kind === 'label' && def.x.type === 'quantitative')) {
    return [];
  }
  const field = def.x.kind === 'label' ? def.x.field : '';
  return points.map((point) => {
    const raw = typeof point.x === 'object' ? point.x.value : point.x;
    return { raw, shown: def.x.kind === 'label' ? formatLabelValue(field, raw) : String(raw) };
  });
}

/** Keeps one unit per axis: the panel's, or the first measured figure's. */
function sameUnits(def: PanelDef, points: readonly RawPoint[]): RawPoint[] {
  const first = points.find((point) => point.model === MEASURED_MODEL);
  if (first === undefined) return [];
  const yUnit = def.unit ?? first.y.unit;
  const xUnit = typeof first.x === 'object' ? first.x.unit : null;
  return points.filter(
    (point) =>
      point.y.unit === yUnit &&
      (typeof point.x === 'object' ? point.x.unit === xUnit : xUnit === null),
  );
}

function legendTitle(title: string, multiMachine: boolean): string {
  return [multiMachine ? 'machine' : '', title].filter((part) => part !== '').join(' · ');
}

/** The panel's points and axes; null when no run measured the panel's quantity. */
export function panelData(def: PanelDef, group: ExperimentGroup): PanelData | null {
  const raw = sameUnits(def, rawPoints(def, group));
  const measured = raw.filter((point) => point.model === MEASURED_MODEL);
  const first = measured[0];
  if (first === undefined) return null;
  const yDisplay = displayUnitFor(
    first.y.unit,
    measured.map((point) => point.y.value),
  );
  const xFigures = measured.map((point) => point.x).filter((x) => typeof x === 'object');
  const xDisplay =
    typeof first.x === 'object'
      ? displayUnitFor(
          first.x.unit,
          xFigures.map((x) => x.value),
        )
      : null;
  const multiMachine = new Set(raw.map((point) => point.run.series)).size > 1;
  const scales = { yDivisor: yDisplay.divisor, xDivisor: xDisplay?.divisor ?? 1, multiMachine };
  const points = raw
    .map((point) => toChartPoint(def, point, scales))
    .filter((point): point is ChartPoint => point !== null);
  const facets = raw.map((point) => facetOf(def, point)).filter((f): f is Category => f !== null);
  return {
    def,
    points,
    yUnit: yDisplay.unit,
    xUnit: xDisplay?.unit ?? null,
    xSort: categoryOrder(xCategories(def, raw)),
    seriesSort: [...new Set(points.map((point) => point.series))],
    colourSort: [...new Set(points.map((point) => point.colour))],
    dashSort: [...new Set(points.map((point) => point.dash))],
    facetSort: categoryOrder(facets),
    hasSeries: multiMachine || def.series.length > 0,
    seriesTitle: legendTitle(def.seriesTitle, multiMachine),
    colourTitle:
      def.colourBy === null
        ? legendTitle(def.seriesTitle, multiMachine)
        : legendTitle(def.colourBy.join(' · '), multiMachine),
    dashTitle:
      def.dashBy === null ? legendTitle(def.seriesTitle, multiMachine) : def.dashBy.join(' · '),
    models: [...new Set(points.filter((p) => p.predicted).map((p) => p.model))],
  };
}
