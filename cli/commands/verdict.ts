/**
 * How the gating commands (`compare`, `ci`, and both with `--against`) print their comparisons
 * and turn a regression of a gated metric into CHECK_FAILED (exit 1).
 */
import type { Comparison } from '../../lab/compare/compare.js';
import {
  type CompareFormat,
  formatComparison,
  summaryLine,
} from '../../lab/compare/compare-format.js';
import { LabError } from '../../lab/errors.js';

/** Prints the comparison; throws CHECK_FAILED (exit 1) when a gated metric regressed. */
export function reportComparison(
  comparison: Comparison,
  format: CompareFormat,
  command: string,
): void {
  process.stdout.write(`${formatComparison(comparison, format)}\n`);
  failIfRegressed([comparison], command);
}

function failIfRegressed(comparisons: readonly Comparison[], command: string): void {
  const failures = comparisons.flatMap((comparison) => comparison.failures);
  if (failures.length > 0) {
    throw new LabError(
      'CHECK_FAILED',
      `${command}: ${failures.length} metric(s) regressed: ` +
        `${failures.map((metric) => metric.name).join(', ')}`,
    );
  }
}

/** Every experiment's table, then one line per experiment; JSON: the list of comparisons. */
function printSuite(comparisons: readonly Comparison[], format: CompareFormat): void {
  if (format === 'json') {
    process.stdout.write(`${JSON.stringify(comparisons, null, 2)}\n`);
    return;
  }
  const tables = comparisons.map((comparison) => formatComparison(comparison, format));
  const failed = comparisons.filter((comparison) => comparison.failures.length > 0).length;
  const lines = comparisons.map((comparison) => summaryLine(comparison));
  const verdict = `suite: ${comparisons.length} experiment(s) compared, ${failed} failing`;
  const summary =
    format === 'md'
      ? [`**${verdict}**`, '', ...lines.map((line) => `- ${line}`)]
      : [verdict, ...lines];
  process.stdout.write(`${[...tables, ...summary].join('\n\n')}\n`);
}

/** Prints the suite and throws CHECK_FAILED when a gated metric regressed. */
export function reportSuite(
  comparisons: readonly Comparison[],
  format: CompareFormat,
  command: string,
): void {
  printSuite(comparisons, format);
  failIfRegressed(comparisons, command);
}
