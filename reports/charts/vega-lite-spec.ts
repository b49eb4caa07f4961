/**
 * Builds a Vega-Lite spec from a chart description and its panels' points. Measured figures are
 * bars or filled points, predictions hollow points shaped by model (no lines: a model often
 * predicts a few points only, and a line between them would suggest a curve), error bars the 95%
 * confidence interval; an axis turns logarithmic when its figures span more than 100×.
 * Sized to read at 800 px wide.
 */
import type { ChartDef, PanelDef } from '../../lab/chart-spec.js';
import type { ChartPoint, PanelData } from './panel-points.js';

/** A Vega-Lite spec as plain JSON; vega-lite's compiler validates it. */
export type VegaLiteSpec = Record<string, unknown>;
type Json = Record<string, unknown>;

/** Figures spanning more than this ratio get a log axis. */
export const LOG_SCALE_SPAN = 100;
const SINGLE_PANEL_WIDTH_PX = 640;
/** Facet cells share one y axis; their widths add up to less than a single plot's. */
const FACETS_WIDTH_PX = 560;
const CONCAT_PANEL_WIDTH_PX = 290;
const PLOT_HEIGHT_PX = 260;
const SMALL_PLOT_HEIGHT_PX = 190;
const FACET_SPACING_PX = 16;
const ERROR_BAR_COLOR = '#222222';
const SINGLE_SERIES_COLOR = '#4c78a8';
/** Room for legend entries under the plot, and a generous width of one 12 px character. */
const LEGEND_WIDTH_PX = 620;
const LEGEND_CHAR_WIDTH_PX = 7.5;
const LEGEND_SYMBOL_WIDTH_PX = 36;
const PREDICTION_SIZE = 130;
/** A category's parts separated by this go on lines of their own under the x axis. */
export const CATEGORY_LINE_BREAK = '; ';
const PREDICTION_SHAPES = ['diamond', 'triangle-up', 'square', 'cross', 'triangle-down', 'circle'];
/**
 * Series colours, ordered so that neighbours differ in hue and lightness (no blue beside teal,
 * no orange beside red, as tableau10's first six give); beyond ten, tableau20.
 */
export const SERIES_COLOURS = [
  '#1f5fa8',
  '#e8850c',
  '#2e9e44',
  '#c4304a',
  '#7b4fb0',
  '#7d5a3c',
  '#e377c2',
  '#6b6b6b',
  '#a9a90f',
  '#17a9bd',
];
/** Line dashes, solid first; each series of a line chart takes the next. */
export const LINE_DASHES = [
  [1, 0],
  [6, 3],
  [2, 2],
  [8, 3, 2, 3],
  [12, 4],
  [3, 5],
  [10, 2, 2, 2, 2, 2],
];
const POINT_TEXT_SIZE = 10;
/** Half the width a dodged series may move within its category band. */
const DODGE_BAND = 0.5;

/** Fonts, sizes and colours every report chart shares. */
export const CHART_CONFIG: Json = {
  font: 'sans-serif',
  background: 'white',
  padding: 12,
  title: { fontSize: 16, subtitleFontSize: 12, anchor: 'start', subtitleColor: '#444444' },
  axis: { labelFontSize: 12, titleFontSize: 13, titleFontWeight: 'normal', gridColor: '#e6e6e6' },
  header: { labelFontSize: 12, titleFontSize: 13, titleFontWeight: 'normal' },
  legend: {
    orient: 'bottom',
    labelFontSize: 12,
    titleFontSize: 12,
    labelLimit: 340,
    titleLimit: 340,
  },
  view: { stroke: '#cccccc' },
};

export interface AxisScale {
  readonly log: boolean;
  /** Whole decades around the figures, for a log axis; null lets Vega-Lite choose. */
  readonly domain: readonly [number, number] | null;
}

/** Log when every figure is positive and the largest is more than 100× the smallest. */
export function axisScale(values: readonly number[]): AxisScale {
  const finite = values.filter((value) => Number.isFinite(value));
  const min = Math.min(...finite);
  const max = Math.max(...finite);
  if (finite.length === 0 || min <= 0 || max / min <= LOG_SCALE_SPAN) {
    return { log: false, domain: null };
  }
  const lowest = 10 ** Math.floor(Math.log10(min));
  return { log: true, domain: [lowest, 10 ** Math.ceil(Math.log10(max))] };
}

function numbers(points: readonly ChartPoint[], keys: readonly (keyof ChartPoint)[]): number[] {
  return points
    .flatMap((point) => keys.map((key) => point[key]))
    .filter((value): value is number => typeof value === 'number');
}

function scaleJson(scale: AxisScale): Json {
  return scale.log ? { type: 'log', domain: scale.domain } : {};
}

/** Ticks and grid lines at whole decades only: minor log ticks crowd the labels. */
function axisJson(scale: AxisScale, extra: Json = {}): Json {
  if (!scale.log || scale.domain === null) return { format: ',~r', ...extra };
  const values: number[] = [];
  for (let decade = scale.domain[0]; decade <= scale.domain[1] * 1.001; decade *= 10) {
    values.push(decade);
  }
  return { format: ',~r', values, ...extra };
}

function axisTitle(title: string, unit: string | null, scale: AxisScale): string {
  const parts = [unit, scale.log ? 'log scale' : null].filter((part) => part !== null);
  return parts.length === 0 ? title : `${title} (${parts.join(', ')})`;
}

/** As many legend columns as the longest entry leaves room for under the plot. */
function legendColumns(entries: readonly string[]): number {
  const longest = Math.max(...entries.map((entry) => entry.length), 1);
  const entryWidthPx = longest * LEGEND_CHAR_WIDTH_PX + LEGEND_SYMBOL_WIDTH_PX;
  const fits = Math.floor(LEGEND_WIDTH_PX / entryWidthPx);
  return Math.max(1, Math.min(fits, entries.length));
}

function legendJson(entries: readonly string[]): Json {
  return { columns: legendColumns(entries) };
}

/**
 * The model legend sits beside the series legend: where that one has as many rows as there are
 * models, the models stack in one column at no cost in height, which keeps a chart of two
 * machines' long series names within 800 px.
 */
function modelLegendJson(models: readonly string[], seriesEntries: readonly string[]): Json {
  const seriesRows = Math.ceil(seriesEntries.length / legendColumns(seriesEntries));
  return seriesRows >= models.length ? { columns: 1 } : legendJson(models);
}

interface Encodings {
  readonly x: Json;
  readonly y: Json;
  readonly color: Json;
  readonly dash: Json | null;
  readonly offset: Json | null;
  readonly shape: Json;
  readonly yScale: AxisScale;
  readonly xScale: AxisScale;
}

function xEncoding(def: PanelDef, data: PanelData, xScale: AxisScale): Json {
  if (def.x.kind === 'quantity' || (def.x.kind === 'label' && def.x.type === 'quantitative')) {
    return {
      field: 'x',
      type: 'quantitative',
      scale: scaleJson(xScale),
      title: axisTitle(def.x.title, data.xUnit, xScale),
      axis: axisJson(xScale),
    };
  }
  const nominal = def.x.kind === 'name' || def.x.type === 'nominal';
  const lines = data.xSort.some((category) => category.includes(CATEGORY_LINE_BREAK))
    ? { labelExpr: `split(datum.label, '${CATEGORY_LINE_BREAK}')` }
    : {};
  return {
    field: 'x',
    type: nominal ? 'nominal' : 'ordinal',
    sort: data.xSort,
    title: def.x.title,
    axis: { labelAngle: def.x.kind === 'name' ? -35 : 0, labelLimit: 220, ...lines },
  };
}

function encodings(data: PanelData): Encodings {
  const def = data.def;
  const yScale = axisScale(numbers(data.points, ['y', 'yLow', 'yHigh']));
  const xScale = axisScale(numbers(data.points, ['x', 'xLow', 'xHigh']));
  const y = {
    field: 'y',
    type: 'quantitative',
    scale: scaleJson(yScale),
    title: axisTitle(def.yTitle, data.yUnit, yScale),
    axis: axisJson(yScale),
  };
  // Colour and dash on one field and title share one legend; split, each has its own.
  const together = def.colourBy === null && def.dashBy === null;
  const lines = data.hasSeries && def.mark !== 'bar' && !def.dodge;
  /** A legend of lines shows each entry's dash in its colour. */
  const strokeSymbols = { symbolType: 'stroke', symbolStrokeWidth: 2.5, symbolSize: 300 };
  const color = data.hasSeries
    ? {
        field: together ? 'series' : 'colour',
        type: 'nominal',
        sort: data.colourSort,
        title: data.colourTitle,
        scale:
          data.colourSort.length > SERIES_COLOURS.length
            ? { scheme: 'tableau20' }
            : { domain: data.colourSort, range: SERIES_COLOURS.slice(0, data.colourSort.length) },
        legend: { ...legendJson(data.colourSort), ...(lines && together ? strokeSymbols : {}) },
      }
    : { value: SINGLE_SERIES_COLOR };
  // Dodged points are drawn without lines (Vega-Lite cannot offset a line), so without dashes.
  const dash = lines
    ? {
        field: together ? 'series' : 'dash',
        type: 'nominal',
        sort: data.dashSort,
        title: data.dashTitle,
        scale: {
          domain: data.dashSort,
          range: data.dashSort.map((_, i) => LINE_DASHES[i % LINE_DASHES.length]),
        },
        legend: { ...legendJson(data.dashSort), ...strokeSymbols },
      }
    : null;
  const offset =
    data.hasSeries && def.mark === 'bar'
      ? { field: 'series', type: 'nominal', sort: data.seriesSort }
      : null;
  const shape = {
    field: 'model',
    type: 'nominal',
    sort: data.models,
    title: 'model prediction',
    scale: { domain: data.models, range: PREDICTION_SHAPES.slice(0, data.models.length) },
    // An explicit symbol encoding: Vega-Lite otherwise strokes these symbols `transparent`.
    legend: {
      ...modelLegendJson(data.models, data.hasSeries ? data.colourSort : []),
      encode: {
        symbols: {
          update: {
            stroke: { value: ERROR_BAR_COLOR },
            strokeWidth: { value: 1.5 },
          },
        },
      },
    },
  };
  return { x: xEncoding(def, data, xScale), y, color, dash, offset, shape, yScale, xScale };
}

const MEASURED = { filter: 'datum.predicted === false' };
const PREDICTED = { filter: 'datum.predicted === true' };
const HAS_Y_INTERVAL = { filter: 'isValid(datum.yLow) && isValid(datum.yHigh)' };
const HAS_X_INTERVAL = { filter: 'isValid(datum.xLow) && isValid(datum.xHigh)' };

function withOffset(encoding: Json, enc: Encodings): Json {
  return enc.offset === null ? encoding : { ...encoding, xOffset: enc.offset };
}

/** Layers drawing no mark make Vega warn about empty extents, so they are left out. */
function intervals(data: PanelData, low: 'yLow' | 'xLow'): boolean {
  return data.points.some((point) => !point.predicted && point[low] !== null);
}

function barLayers(enc: Encodings, data: PanelData): Json[] {
  const base = enc.yScale.domain === null ? {} : { y2: { datum: enc.yScale.domain[0] } };
  const layers: Json[] = [
    {
      transform: [MEASURED],
      mark: { type: 'bar' },
      encoding: withOffset({ x: enc.x, y: enc.y, color: enc.color, ...base }, enc),
    },
  ];
  if (!enc.yScale.log && data.points.some((point) => !point.predicted && point.y === 0)) {
    // A bar of 0 has no height; a tick on the axis shows it was measured, not missing.
    layers.push({
      transform: [MEASURED, { filter: 'datum.y === 0' }],
      mark: { type: 'tick', thickness: 3, opacity: 1 },
      encoding: withOffset({ x: enc.x, y: enc.y, color: enc.color }, enc),
    });
  }
  if (data.points.some((point) => !point.predicted && point.text !== null)) {
    layers.push({
      transform: [MEASURED, { filter: 'isValid(datum.text)' }],
      mark: { type: 'text', baseline: 'bottom', dy: -4, fontSize: 12, color: ERROR_BAR_COLOR },
      encoding: withOffset({ x: enc.x, y: enc.y, text: { field: 'text' } }, enc),
    });
  }
  if (intervals(data, 'yLow')) {
    layers.push({
      transform: [MEASURED, HAS_Y_INTERVAL],
      mark: { type: 'rule', color: ERROR_BAR_COLOR, strokeWidth: 1.5 },
      encoding: withOffset(
        { x: enc.x, y: { field: 'yLow', type: 'quantitative' }, y2: { field: 'yHigh' } },
        enc,
      ),
    });
  }
  if (data.models.length === 0) return layers;
  return [
    ...layers,
    {
      transform: [PREDICTED],
      mark: {
        type: 'point',
        filled: true,
        fill: 'white',
        stroke: ERROR_BAR_COLOR,
        strokeWidth: 1.5,
        size: PREDICTION_SIZE,
        opacity: 1,
      },
      encoding: withOffset({ x: enc.x, y: enc.y, shape: enc.shape }, enc),
    },
  ];
}

/** Series side by side within each x category, when the panel dodges them. */
function dodged(encoding: Json, data: PanelData): Json {
  if (!data.def.dodge || !data.hasSeries) return encoding;
  return {
    ...encoding,
    xOffset: {
      field: 'series',
      type: 'nominal',
      sort: data.seriesSort,
      scale: { paddingOuter: DODGE_BAND },
    },
  };
}

function lineLayers(enc: Encodings, data: PanelData): Json[] {
  const order = data.def.order === null ? {} : { order: { field: 'order', type: 'quantitative' } };
  const dash = enc.dash === null ? {} : { strokeDash: enc.dash };
  const line = {
    transform: [MEASURED],
    mark: { type: 'line', strokeWidth: 2, opacity: 0.9 },
    encoding: {
      x: enc.x,
      y: enc.y,
      color: enc.color,
      ...dash,
      detail: { field: 'series' },
      ...order,
    },
  };
  const layers: Json[] = [
    ...(data.def.dodge ? [] : [line]),
    {
      transform: [MEASURED],
      mark: { type: 'point', filled: true, size: 55, opacity: 1 },
      encoding: dodged({ x: enc.x, y: enc.y, color: enc.color }, data),
    },
  ];
  if (data.points.some((point) => !point.predicted && point.text !== null)) {
    layers.push({
      transform: [MEASURED, { filter: 'isValid(datum.text)' }],
      mark: { type: 'text', align: 'left', dx: 6, dy: -6, fontSize: POINT_TEXT_SIZE },
      encoding: dodged({ x: enc.x, y: enc.y, text: { field: 'text' }, color: enc.color }, data),
    });
  }
  if (intervals(data, 'yLow')) {
    layers.push({
      transform: [MEASURED, HAS_Y_INTERVAL],
      mark: { type: 'rule', strokeWidth: 1.5 },
      encoding: {
        x: enc.x,
        y: { field: 'yLow', type: 'quantitative' },
        y2: { field: 'yHigh' },
        color: enc.color,
      },
    });
  }
  if (intervals(data, 'xLow')) {
    layers.push({
      transform: [MEASURED, HAS_X_INTERVAL],
      mark: { type: 'rule', strokeWidth: 1.5 },
      encoding: {
        y: enc.y,
        x: { field: 'xLow', type: 'quantitative' },
        x2: { field: 'xHigh' },
        color: enc.color,
      },
    });
  }
  if (data.models.length === 0) return layers;
  return [
    ...layers,
    // Larger than the measured dots, so a prediction that matches reads as a ring around one.
    {
      transform: [PREDICTED],
      mark: { type: 'point', filled: false, strokeWidth: 2, size: PREDICTION_SIZE, opacity: 1 },
      encoding: { x: enc.x, y: enc.y, color: enc.color, shape: enc.shape },
    },
  ];
}

interface PanelSize {
  readonly widthPx: number;
  readonly heightPx: number;
  readonly maxColumns: number;
}

function panelSpec(data: PanelData, size: PanelSize): Json {
  const enc = encodings(data);
  const layer = data.def.mark === 'bar' ? barLayers(enc, data) : lineLayers(enc, data);
  const values = {
    data: { values: data.points },
    ...(data.def.title === null ? {} : { title: { text: data.def.title, fontSize: 13 } }),
  };
  const facet = data.def.facet;
  if (facet === null) return { ...values, width: size.widthPx, height: size.heightPx, layer };
  const columns = Math.min(Math.max(data.facetSort.length, 1), size.maxColumns);
  const widthPx = Math.min(size.widthPx, FACETS_WIDTH_PX);
  const cellWidthPx = Math.floor((widthPx - FACET_SPACING_PX * (columns - 1)) / columns);
  return {
    ...values,
    columns,
    spacing: FACET_SPACING_PX,
    facet: { field: 'facet', type: 'ordinal', title: facet.title, sort: data.facetSort },
    spec: { width: cellWidthPx, height: SMALL_PLOT_HEIGHT_PX, layer },
  };
}

function subtitle(panels: readonly PanelData[]): string[] {
  const lines: string[] = [];
  const hasInterval = panels.some((data) => data.points.some((point) => point.yLow !== null));
  if (hasInterval) lines.push('Error bars: 95% confidence interval of the median.');
  if (panels.some((data) => data.models.length > 0)) {
    lines.push('Hollow marks: model predictions; bars and filled marks: measured.');
  }
  return lines;
}

/** The chart's Vega-Lite spec; `panels` are the panels of `def` that have figures. */
export function buildChartSpec(def: ChartDef, panels: readonly PanelData[]): VegaLiteSpec {
  if (panels.length === 0) throw new Error(`assertion failed: chart '${def.id}' has panels`);
  const lines = subtitle(panels);
  const title = lines.length === 0 ? { text: def.title } : { text: def.title, subtitle: lines };
  const only = panels[0];
  if (panels.length === 1 && only !== undefined) {
    const size = { widthPx: SINGLE_PANEL_WIDTH_PX, heightPx: PLOT_HEIGHT_PX, maxColumns: 3 };
    return { title, config: CHART_CONFIG, ...panelSpec(only, size) };
  }
  const size = { widthPx: CONCAT_PANEL_WIDTH_PX, heightPx: SMALL_PLOT_HEIGHT_PX, maxColumns: 2 };
  return {
    title,
    config: CHART_CONFIG,
    columns: 2,
    concat: panels.map((data) => panelSpec(data, size)),
  };
}
