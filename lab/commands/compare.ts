/**
 * `loglab compare BASELINE.json CURRENT.json`: metric by metric, what changed and whether it is a
 * regression (lab/compare.ts). Exit 0 when nothing gated regressed, 1 when something did, 2 when
 * the documents cannot be compared.
 */
import type { Command } from 'commander';
import { parseChoice, parsePercentArgument } from '../arguments.js';
import {
  type Comparison,
  DEFAULT_THRESHOLD,
  compareDocuments,
  readComparablePair,
} from '../compare.js';
import { COMPARE_FORMATS, type CompareFormat, formatComparison } from '../compare-format.js';
import { LabError } from '../errors.js';

export interface GateOptions {
  readonly threshold?: string;
  readonly format: string;
  readonly timings?: boolean;
}

export function parseGateOptions(options: GateOptions) {
  return {
    thresholdRatio: options.threshold === undefined
      ? DEFAULT_THRESHOLD
      : parsePercentArgument('--threshold', options.threshold),
    gateTimings: options.timings === true,
    format: parseChoice<CompareFormat>('--format', options.format, COMPARE_FORMATS),
  };
}

/** Prints the comparison; throws CHECK_FAILED (exit 1) when a gated metric regressed. */
export function reportComparison(
  comparison: Comparison,
  format: CompareFormat,
  command: string,
): void {
  process.stdout.write(`${formatComparison(comparison, format)}\n`);
  const { failures } = comparison;
  if (failures.length > 0) {
    throw new LabError('CHECK_FAILED', `${command}: ${failures.length} metric(s) regressed: ` +
      `${failures.map((metric) => metric.name).join(', ')}`);
  }
}

export function registerCompareCommand(program: Command): void {
  program
    .command('compare')
    .description('compare two results files of one experiment; exit 1 when something regressed')
    .argument('<baseline>', 'the results file to compare against')
    .argument('<current>', 'the results file to judge')
    .option('--threshold <percent>', `smallest change that counts (${DEFAULT_THRESHOLD * 100}%)`)
    .option('--format <format>', `output: ${COMPARE_FORMATS.join(', ')}`, 'text')
    .option('--timings', 'let raw timings fail the comparison too (they are reported either way)')
    .action((baselineFile: string, currentFile: string, options: GateOptions) => {
      const gate = parseGateOptions(options);
      const [baseline, current] = readComparablePair(baselineFile, currentFile);
      const comparison = compareDocuments(baseline, current, gate);
      reportComparison(comparison, gate.format, 'compare');
    });
}
