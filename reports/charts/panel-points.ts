/**
 * The points one panel plots, taken from every run of an experiment: measured figures and the
 * model predictions of the same names, each with its x, series (machine and label fields) and
 * facet, converted to the display unit that suits the panel.
 */
import type { Metric, Prediction, Results } from '../../lab/results.js';
import { predictionLabels, quantityOf, type LabelValue, type Labels } from '../figures.js';
import type { ExperimentGroup, Run } from '../runs.js';
import { displayUnitFor, formatLabelValue } from '../units.js';
import type { PanelDef } from './chart-types.js';

export const MEASURED_MODEL = 'measured';

export interface ChartPoint {
  readonly x: string | number;
  readonly y: number;
  readonly yLow: number | null;
  readonly yHigh: number | null;
  readonly xLow: number | null;
  readonly xHigh: number | null;
  readonly series: string;
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
  readonly facetSort: readonly string[];
  /** Whether colour carries meaning (label series or several machines). */
  readonly hasSeries: boolean;
  /** Legend title of the colour: the series fields, led by `machine` when there are several. */
  readonly seriesTitle: string;
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
}

function measuredFigure(metric: Metric, def: PanelDef): Figure | null {
  const value = def.statistic === 'median' ? metric.median : metric.p99;
  if (value === undefined) return null;
  const ci95 = def.statistic === 'median' ? metric.ci95 ?? null : null;
  return { name: metric.name, unit: metric.unit, value, ci95, labels: metric.labels ?? {} };
}

function predictedFigure(results: Results, prediction: Prediction): Figure {
  return { name: prediction.name, unit: prediction.unit, value: prediction.value, ci95: null,
    labels: predictionLabels(results, prediction) };
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
  return partners.find((partner) => quantityOf(partner.name) === wanted &&
    labelsWithin(partner.labels, figure.labels)) ?? null;
}

function selects(def: PanelDef, figure: Figure): boolean {
  return def.quantity === null || quantityOf(figure.name) === def.quantity;
}

function rawPoints(def: PanelDef, group: ExperimentGroup): RawPoint[] {
  const points: RawPoint[] = [];
  for (const run of group.runs) {
    const measured = run.results.metrics.map((metric) => measuredFigure(metric, def))
      .filter((figure): figure is Figure => figure !== null);
    const partners = run.results.metrics.map((metric) => measuredFigure(metric, { ...def,
      statistic: 'median' })).filter((figure): figure is Figure => figure !== null);
    for (const y of measured.filter((figure) => selects(def, figure))) {
      const x = xOf(def, y, partners);
      if (x !== null) points.push({ y, x, run, model: MEASURED_MODEL });
    }
    // Predictions estimate typical figures, so they sit beside medians only.
    if (def.statistic !== 'median') continue;
    const models = [...new Set(run.results.predictions.map((prediction) => prediction.model))];
    for (const model of models) {
      const predicted = run.results.predictions.filter((prediction) => prediction.model === model)
        .map((prediction) => predictedFigure(run.results, prediction));
      for (const y of predicted.filter((figure) => selects(def, figure))) {
        const x = xOf(def, y, predicted);
        if (x !== null) points.push({ y, x, run, model });
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

function seriesOf(def: PanelDef, point: RawPoint, multiMachine: boolean): string {
  const parts = def.series.filter((field) => point.y.labels[field] !== undefined)
    .map((field) => formatLabelValue(field, point.y.labels[field] ?? ''));
  return (multiMachine ? [point.run.series, ...parts] : parts).join(' · ');
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
    x, y: point.y.value / scales.yDivisor,
    yLow: scaled(point.y.ci95, scales.yDivisor, 0), yHigh: scaled(point.y.ci95, scales.yDivisor, 1),
    xLow: scaled(xFigure?.ci95 ?? null, scales.xDivisor, 0),
    xHigh: scaled(xFigure?.ci95 ?? null, scales.xDivisor, 1),
    series: seriesOf(def, point, scales.multiMachine), facet: facetOf(def, point)?.shown ?? null,
    order: typeof orderValue === 'number' ? orderValue : null,
    model: point.model, predicted: point.model !== MEASURED_MODEL,
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
  return points.filter((point) => point.y.unit === yUnit &&
    (typeof point.x === 'object' ? point.x.unit === xUnit : xUnit === null));
}

/** The panel's points and axes; null when no run measured the panel's quantity. */
export function panelData(def: PanelDef, group: ExperimentGroup): PanelData | null {
  const raw = sameUnits(def, rawPoints(def, group));
  const measured = raw.filter((point) => point.model === MEASURED_MODEL);
  const first = measured[0];
  if (first === undefined) return null;
  const yDisplay = displayUnitFor(first.y.unit, measured.map((point) => point.y.value));
  const xFigures = measured.map((point) => point.x).filter((x) => typeof x === 'object');
  const xDisplay = typeof first.x === 'object'
    ? displayUnitFor(first.x.unit, xFigures.map((x) => x.value)) : null;
  const multiMachine = new Set(raw.map((point) => point.run.series)).size > 1;
  const scales = { yDivisor: yDisplay.divisor, xDivisor: xDisplay?.divisor ?? 1, multiMachine };
  const points = raw.map((point) => toChartPoint(def, point, scales))
    .filter((point): point is ChartPoint => point !== null);
  const facets = raw.map((point) => facetOf(def, point)).filter((f): f is Category => f !== null);
  return {
    def, points, yUnit: yDisplay.unit, xUnit: xDisplay?.unit ?? null,
    xSort: categoryOrder(xCategories(def, raw)),
    seriesSort: [...new Set(points.map((point) => point.series))],
    facetSort: categoryOrder(facets),
    hasSeries: multiMachine || def.series.length > 0,
    seriesTitle: [multiMachine ? 'machine' : '', def.seriesTitle].filter((t) => t !== '')
      .join(' · '),
    models: [...new Set(points.filter((p) => p.predicted).map((p) => p.model))],
  };
}
