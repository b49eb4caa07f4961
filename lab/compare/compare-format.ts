/**
 * How `loglab compare` and `loglab ci` print a comparison: an aligned text table for a terminal,
 * a Markdown table for a pull-request comment, or the comparison itself as JSON.
 */
import {
  type Comparison,
  type MetricComparison,
  MEASUREMENT_THRESHOLD_FLOOR,
  isGated,
} from './compare.js';
import { formatFigure } from '../format.js';
import { alignedTable } from '../text-table.js';

export const COMPARE_FORMATS = ['text', 'md', 'json'] as const;
export type CompareFormat = (typeof COMPARE_FORMATS)[number];

const HEADER = [
  'metric',
  'class',
  'baseline',
  'current',
  'change',
  // The summary line's rule says the coverage: 95% between two files, more for paired rounds.
  'interval',
  'verdict',
] as const;

const sign = (figure: number) => (figure > 0 ? '+' : '');
const percent = (ratio: number) => `${ratio >= 0 ? '+' : ''}${(ratio * 100).toFixed(1)}%`;
const value = (figure: number, unit: string) => `${formatFigure(figure)} ${unit}`;

function change(metric: MetricComparison): string {
  if (metric.verdict === 'unchanged') return '0';
  if (metric.change === null) {
    return metric.difference === 0
      ? '0'
      : `${sign(metric.difference)}${value(metric.difference, metric.unit)}`;
  }
  if (metric.class === 'counter' && metric.difference !== 0) {
    // A counter moves by whole bytes or calls: the absolute change says more than a percentage.
    const difference = `${sign(metric.difference)}${formatFigure(metric.difference)}`;
    return `${percent(metric.change)} (${difference})`;
  }
  return percent(metric.change);
}

function interval(metric: MetricComparison): string {
  if (metric.ci95 !== null) return `[${percent(metric.ci95[0])}, ${percent(metric.ci95[1])}]`;
  return metric.class === 'counter' ? 'exact' : (metric.intervalNote ?? 'unavailable');
}

/**
 * The verdict as a table shows it, and why it cannot fail where it cannot: always for a figure
 * its contract would gate but its rounds do not, else only when it moved (the summary line says
 * raw timings are reported).
 */
export function verdictCell(
  metric: { readonly verdict: string; readonly notGated?: string | null } & Pick<
    MetricComparison,
    'direction' | 'gated' | 'class' | 'kind'
  >,
  gateTimings = false,
): string {
  const quiet = metric.verdict === 'within noise' || metric.verdict === 'unchanged';
  // A judgement that carries no reason of its own (a history's) says only that it cannot fail.
  const notGated = metric.notGated ?? (metric.gated ? null : 'reported only');
  if (notGated === null || (quiet && !isGated(metric, gateTimings))) return metric.verdict;
  if (metric.direction === 'informational') return `${metric.verdict} (informational)`;
  return `${metric.verdict} (not gated: ${notGated})`;
}

/** `counter`, `measurement`, `timing`, and `ratio` after a within-run ratio's class. */
export function classCell(metric: Pick<MetricComparison, 'kind' | 'class'>): string {
  return metric.kind === 'ratio' ? `${metric.class} ratio` : metric.class;
}

function rows(comparison: Comparison): string[][] {
  return comparison.metrics.map((metric) => [
    metric.name,
    classCell(metric),
    value(metric.baseline, metric.unit),
    value(metric.current, metric.unit),
    change(metric),
    interval(metric),
    verdictCell(metric, comparison.gateTimings),
  ]);
}

const percentOf = (ratio: number) => `${(ratio * 100).toFixed(1)}%`;

/** The rules the comparison applied, with the thresholds it used (lab/compare/compare.ts). */
function ruleLine(comparison: Comparison): string {
  const floor = percentOf(MEASUREMENT_THRESHOLD_FLOOR);
  return (
    `counters exact; intervals at 95%; threshold ${percentOf(comparison.thresholdRatio)} for ratios` +
    `${comparison.gateTimings ? ' and timings' : ''}, ` +
    `${percentOf(comparison.measurementThresholdRatio)} for measurements (the larger of ` +
    `${floor} and the threshold; 6 rounds a side); ` +
    `${comparison.gateTimings ? '' : 'raw timings reported only (--gate-timings gates them); '}` +
    'informational never fail'
  );
}

export function summaryLine(comparison: Comparison): string {
  const count = (verdict: string) =>
    comparison.metrics.filter((metric) => metric.verdict === verdict).length;
  const failed = comparison.failures.length;
  const rule = comparison.rule ?? ruleLine(comparison);
  const names = comparison.failures.map((metric) => metric.name).join(', ');
  const outcome = failed === 0 ? 'no gated regression' : `${failed} failing: ${names}`;
  return (
    `${comparison.experimentId}: ${outcome} — ${count('regressed')} regressed, ` +
    `${count('improved')} improved, ${count('changed')} changed, ` +
    `${count('unchanged')} unchanged, ` +
    `${count('within noise')} within noise (${rule})`
  );
}

function textTable(comparison: Comparison): string {
  return [
    `${comparison.baselineFile} → ${comparison.currentFile}`,
    ...alignedTable(HEADER, rows(comparison)),
    ...comparison.warnings.map((warning) => `warning: ${warning}`),
    summaryLine(comparison),
  ].join('\n');
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

function markdownTable(comparison: Comparison): string {
  const mark = (metric: MetricComparison) => (comparison.failures.includes(metric) ? '❌ ' : '');
  const body = rows(comparison).map((row, i) => {
    const metric = comparison.metrics[i]!;
    const cells = row.map((text, column) => (column === 0 ? `\`${cell(text)}\`` : cell(text)));
    cells[6] = `${mark(metric)}${cells[6]}`;
    return `| ${cells.join(' | ')} |`;
  });
  return [
    `### loglab compare: \`${cell(comparison.experimentId)}\``,
    '',
    `| ${HEADER.join(' | ')} |`,
    `| ${HEADER.map((_, i) => (i < 2 || i === HEADER.length - 1 ? '---' : '---:')).join(' | ')} |`,
    ...body,
    '',
    ...comparison.warnings.flatMap((warning) => [`> warning: ${cell(warning)}`, '']),
    `**${cell(summaryLine(comparison))}**`,
  ].join('\n');
}

export function formatComparison(comparison: Comparison, format: CompareFormat): string {
  if (format === 'json') return JSON.stringify(comparison, null, 2);
  return format === 'md' ? markdownTable(comparison) : textTable(comparison);
}

/**
 * The comparison as a side-by-side view of two machines or runs (`compare --side-by-side`): a
 * difference beyond the noise is `changed`, neither better nor worse, since a faster disk is no
 * regression of the code; nothing is gated and nothing fails, so no metric carries a reason for
 * not being gated either.
 */
export function sideBySide(comparison: Comparison): Comparison {
  return {
    ...comparison,
    metrics: comparison.metrics.map((metric) => ({
      ...metric,
      gated: false,
      notGated: null,
      verdict:
        metric.verdict === 'regressed' || metric.verdict === 'improved'
          ? 'changed'
          : metric.verdict,
    })),
    failures: [],
  };
}
