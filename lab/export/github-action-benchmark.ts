/**
 * github-action-benchmark's custom JSON (its README, "Examples > Custom"): an array of
 * `{ name, unit, value, range?, extra? }`, read with `tool: customBiggerIsBetter` or
 * `customSmallerIsBetter`. The tool name carries the direction, so one file holds the metrics of
 * one direction; `informational` metrics belong in neither and are left out (the caller says so).
 *
 * - `value` is the median; `unit` the metric's unit; `name` the metric's dotted name.
 * - `range` is a string the tool shows and parses as `± X`; the interval of the median (`ci95`)
 *   is not symmetric, so X is the larger of its two distances from the median, and the exact
 *   interval goes in `extra`, with the sample count, class and experiment.
 */
import { assert } from '../../storage/errors.js';
import type { NamedResults } from '../results-documents.js';
import { formatFigure } from '../format.js';
import type { Metric } from '../results.js';

export type BetterDirection = 'higher' | 'lower';

/** The value of `tool:` in the workflow that reads a file of this direction. */
export const GITHUB_ACTION_BENCHMARK_TOOL: Readonly<Record<BetterDirection, string>> = {
  higher: 'customBiggerIsBetter',
  lower: 'customSmallerIsBetter',
};

export interface GithubActionBenchmarkEntry {
  readonly name: string;
  readonly unit: string;
  readonly value: number;
  readonly range?: string;
  readonly extra?: string;
}

export interface LeftOut {
  readonly experimentId: string;
  readonly names: readonly string[];
}

export interface GithubActionBenchmarkExport {
  readonly entries: readonly GithubActionBenchmarkEntry[];
  /** Informational metrics, per experiment: no direction is better, so neither file has them. */
  readonly informational: readonly LeftOut[];
  /** How many metrics of the other direction were not written to this file. */
  readonly otherDirectionCount: number;
}

/**
 * `± X` with at least two characters after X's first digit: the tool's parser
 * (`(\+-|±)\s*\d.+`) reads nothing from `± 5`, and `± 5.00` is the same number.
 */
export function formatHalfWidth(halfWidth: number): string {
  assert(Number.isFinite(halfWidth) && halfWidth >= 0, `half-width must be >= 0: ${halfWidth}`);
  return `± ${halfWidth >= 100 ? String(Math.round(halfWidth)) : halfWidth.toPrecision(3)}`;
}

function extraOf(metric: Metric, experimentId: string): string {
  const lines: string[] = [];
  if (metric.ci95 !== undefined) {
    const [lo, hi] = metric.ci95;
    lines.push(
      `95% interval of the median: [${formatFigure(lo)}, ${formatFigure(hi)}] ` + `${metric.unit}`,
    );
  }
  if (metric.count !== undefined) lines.push(`n = ${metric.count}`);
  const kind = metric.kind === 'ratio' ? ' (within-run ratio)' : '';
  lines.push(`class: ${metric.class}${kind}`, `experiment: ${experimentId}`);
  return lines.join('\n');
}

function entryOf(metric: Metric, experimentId: string): GithubActionBenchmarkEntry {
  const extra = extraOf(metric, experimentId);
  if (metric.ci95 === undefined) {
    return { name: metric.name, unit: metric.unit, value: metric.median, extra };
  }
  const [lo, hi] = metric.ci95;
  const halfWidth = Math.max(Math.abs(metric.median - lo), Math.abs(hi - metric.median));
  const range = formatHalfWidth(halfWidth);
  return { name: metric.name, unit: metric.unit, value: metric.median, range, extra };
}

/** The entries of one direction from every document, in the documents' order. */
export function toGithubActionBenchmark(
  docs: readonly NamedResults[],
  direction: BetterDirection,
): GithubActionBenchmarkExport {
  const entries: GithubActionBenchmarkEntry[] = [];
  const informational: LeftOut[] = [];
  let otherDirectionCount = 0;
  for (const { results } of docs) {
    const id = results.experiment.id;
    const left = results.metrics.filter((metric) => metric.direction === 'informational');
    if (left.length > 0) informational.push({ experimentId: id, names: left.map((m) => m.name) });
    for (const metric of results.metrics) {
      if (metric.direction === direction) entries.push(entryOf(metric, id));
      else if (metric.direction !== 'informational') otherDirectionCount++;
    }
  }
  return { entries, informational, otherDirectionCount };
}
