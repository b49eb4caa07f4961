/**
 * The tables of an experiment's figures, one per quantity: the quantity's human title with its
 * raw name, the labels that vary as columns (those every row shares are said once, above the
 * table), and the median with its 95% interval and p99 in one display unit per table, named in
 * the header, so the numbers line up; then the sample count and the model predictions. Splitting
 * by quantity keeps each table narrow enough to read at 1280 px without scrolling sideways.
 */
import type { Metric } from '../lab/results.js';
import { figureRows, labelKeys, type FigureRow, type LabelValue } from './figures.js';
import { metricTitle } from './metric-titles.js';
import type { ExperimentGroup } from './runs.js';
import { formatFigure } from '../lab/format.js';
import {
  displayUnitFor,
  formatInDisplayUnit,
  formatLabelValue,
  type DisplayUnit,
} from './units.js';

/** Plain text cells; the Markdown and HTML writers escape them. */
export interface Table {
  readonly header: readonly string[];
  readonly rows: readonly (readonly string[])[];
  /** Columns of numbers, aligned right; absent: none. */
  readonly numeric?: readonly boolean[];
  /** Each row's raw metric name, shown as the row's tooltip; absent: none. */
  readonly rowNames?: readonly string[];
}

/** One quantity's table. */
export interface QuantityTable {
  /** What a reader calls it (`throughput`), from the experiment's catalog. */
  readonly title: string;
  /** The raw quantity, the metric names' last segment (`msgsPerSec`). */
  readonly quantity: string;
  /** Labels every row shares, said once: `policy: always`. */
  readonly shared: readonly string[];
  readonly table: Table;
}

const MISSING = '—';

function unitLabel(display: DisplayUnit): string {
  if (display.unit === 'count') return '';
  return display.unit === 'ratio' ? ' (×)' : ` (${display.unit})`;
}

/** Shown in the table's unit without the unit: `1,027 – 2,755`. */
function measuredCells(metric: Metric | null, display: DisplayUnit): readonly string[] {
  if (metric === null) return [MISSING, MISSING, MISSING, MISSING];
  const shown = (value: number): string => formatFigure(value / display.divisor);
  const interval =
    metric.ci95 === undefined ? MISSING : `${shown(metric.ci95[0])} – ${shown(metric.ci95[1])}`;
  const count = metric.count ?? metric.samples?.length;
  return [
    shown(metric.median),
    interval,
    metric.p99 === undefined ? MISSING : shown(metric.p99),
    count === undefined ? MISSING : formatFigure(count),
  ];
}

function predictedCell(row: FigureRow, display: DisplayUnit, unit: string): string {
  const cells = row.predictions.map((prediction) => {
    const value =
      prediction.unit === unit
        ? formatFigure(prediction.value / display.divisor)
        : formatInDisplayUnit(prediction.value, prediction.unit);
    return `${prediction.model}: ${value}`;
  });
  return cells.length === 0 ? MISSING : cells.join('; ');
}

function sameValue(values: readonly (LabelValue | undefined)[]): boolean {
  return values.every((value) => value !== undefined && value === values[0]);
}

/** Raw names are needed where two rows of one run would otherwise read the same. */
function ambiguous(rows: readonly FigureRow[], shownKeys: readonly string[]): boolean {
  const seen = new Set<string>();
  for (const row of rows) {
    const key = JSON.stringify([row.run.series, shownKeys.map((k) => row.labels[k])]);
    if (seen.has(key)) return true;
    seen.add(key);
  }
  return false;
}

function quantityTable(group: ExperimentGroup, rows: readonly FigureRow[]): QuantityTable {
  const first = rows[0]!;
  const keys = labelKeys(rows);
  const varying = keys.filter((key) => !sameValue(rows.map((row) => row.labels[key])));
  const shared = keys
    .filter((key) => !varying.includes(key))
    .map((key) => `${key}: ${formatLabelValue(key, first.labels[key] ?? '')}`);
  const unit =
    rows.find((row) => row.metric !== null)?.metric?.unit ?? first.predictions[0]?.unit ?? '';
  const display = displayUnitFor(
    unit,
    rows.flatMap((row) => (row.metric === null ? [] : [row.metric.median])),
  );
  const severalRuns = group.runs.length > 1;
  const named = ambiguous(rows, varying);
  const header = [
    ...(named ? ['figure'] : []),
    ...varying,
    ...(severalRuns ? ['machine'] : []),
    `median${unitLabel(display)}`,
    '95% interval',
    'p99',
    'n',
    'predicted',
  ];
  const body = rows.map((row) => [
    ...(named ? [row.name] : []),
    ...varying.map((key) => {
      const value = row.labels[key];
      return value === undefined ? MISSING : formatLabelValue(key, value);
    }),
    ...(severalRuns ? [row.run.series] : []),
    ...measuredCells(row.metric, display),
    predictedCell(row, display, unit),
  ]);
  const labelColumns = header.length - 5;
  return {
    title: metricTitle(
      group.runs.map((run) => run.results),
      first.quantity,
    ),
    quantity: first.quantity,
    shared,
    table: {
      header,
      rows: body,
      rowNames: rows.map((row) => row.name),
      numeric: header.map((_, i) => i >= labelColumns && i < header.length - 1),
    },
  };
}

/** One table per quantity, in the order the quantities first appear. */
export function figureTables(group: ExperimentGroup): readonly QuantityTable[] {
  const byQuantity = new Map<string, FigureRow[]>();
  for (const row of figureRows(group)) {
    const rows = byQuantity.get(row.quantity) ?? [];
    rows.push(row);
    byQuantity.set(row.quantity, rows);
  }
  return [...byQuantity.values()].map((rows) => quantityTable(group, rows));
}
