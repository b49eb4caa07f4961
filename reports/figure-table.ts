/**
 * The table of an experiment's figures: one row per metric and run, its labels as columns, the
 * median with its 95% interval and p99 in the unit that suits the row, the sample count, and the
 * model predictions of the same name.
 */
import type { Metric } from '../lab/results.js';
import { figureRows, labelKeys, type FigureRow } from './figures.js';
import type { ExperimentGroup } from './runs.js';
import { displayUnitFor, formatFigure, formatLabelValue, formatNumber, withUnit } from './units.js';

/** Plain text cells; the Markdown and HTML writers escape them. */
export interface Table {
  readonly header: readonly string[];
  readonly rows: readonly (readonly string[])[];
}

const MISSING = '—';

function figureName(row: FigureRow, rows: readonly FigureRow[]): string {
  const key = (candidate: FigureRow): string =>
    `${candidate.quantity} ${JSON.stringify(candidate.labels)}`;
  const ambiguous = rows.filter((other) => other.run === row.run && key(other) === key(row));
  return ambiguous.length > 1 ? row.name : row.quantity;
}

function measuredCells(metric: Metric | null): readonly string[] {
  if (metric === null) return [MISSING, MISSING, MISSING, MISSING];
  const display = displayUnitFor(metric.unit, [metric.median]);
  const shown = (value: number): string => formatNumber(value / display.divisor);
  const interval = metric.ci95 === undefined ? MISSING
    : `${shown(metric.ci95[0])} – ${withUnit(metric.ci95[1] / display.divisor, display.unit)}`;
  const p99 = metric.p99 === undefined ? MISSING
    : withUnit(metric.p99 / display.divisor, display.unit);
  const count = metric.count ?? metric.samples?.length;
  return [withUnit(metric.median / display.divisor, display.unit), interval, p99,
    count === undefined ? MISSING : formatNumber(count)];
}

export function figureTable(group: ExperimentGroup): Table {
  const rows = figureRows(group);
  const keys = labelKeys(rows);
  const severalRuns = group.runs.length > 1;
  const header = ['figure', ...keys, ...(severalRuns ? ['machine'] : []),
    'median', '95% interval', 'p99', 'n', 'predicted'];
  const body = rows.map((row) => {
    const labels = keys.map((key) => {
      const value = row.labels[key];
      return value === undefined ? MISSING : formatLabelValue(key, value);
    });
    const predicted = row.predictions.map((prediction) =>
      `${prediction.model}: ${formatFigure(prediction.value, prediction.unit)}`).join('; ');
    return [figureName(row, rows), ...labels, ...(severalRuns ? [row.run.series] : []),
      ...measuredCells(row.metric), predicted === '' ? MISSING : predicted];
  });
  return { header, rows: body };
}
