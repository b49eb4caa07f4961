/**
 * `loglab compare BASELINE.json CURRENT.json` (or two directories of results files, matched by
 * experiment id): metric by metric, what changed and whether it is a regression
 * (lab/compare/compare.ts). Exit 0 when nothing gated regressed, 1 when something did, 2 when the
 * documents cannot be compared.
 */
import type { Command } from 'commander';
import * as fs from 'node:fs';
import { parseChoice, parsePercentArgument } from '../arguments.js';
import {
  type Comparison,
  type NamedResults,
  DEFAULT_THRESHOLD,
  compareDocuments,
  readComparablePair,
  readComparableSuites,
} from '../../lab/compare/compare.js';
import {
  COMPARE_FORMATS,
  type CompareFormat,
  sideBySide,
} from '../../lab/compare/compare-format.js';
import { LabError } from '../../lab/errors.js';
import {
  type AgainstOptions,
  addAgainstOptions,
  refuseWithoutAgainst,
  runAgainst,
  selectedWorkloads,
} from './against.js';
import { reportComparison, reportSuite } from './verdict.js';

export interface GateOptions {
  readonly threshold?: string;
  readonly format: string;
  readonly gateTimings?: boolean;
  readonly sideBySide?: boolean;
}

export function parseGateOptions(options: GateOptions) {
  return {
    thresholdRatio:
      options.threshold === undefined
        ? DEFAULT_THRESHOLD
        : parsePercentArgument('--threshold', options.threshold),
    gateTimings: options.gateTimings === true,
    format: parseChoice<CompareFormat>('--format', options.format, COMPARE_FORMATS),
  };
}

const isDirectory = (file: string) => fs.statSync(file, { throwIfNoEntry: false })?.isDirectory();

type CompareOptions = GateOptions & AgainstOptions;

/** `compare --against REF --bench NAME`: the named workloads only, in turns with REF's build. */
function compareAgainst(
  ref: string,
  positional: string | undefined,
  options: CompareOptions,
): void {
  if (positional !== undefined) {
    throw new LabError('BAD_ARGUMENT', `compare --against: no files, got '${positional}'`);
  }
  const workloads = selectedWorkloads(options);
  if (workloads.length === 0) {
    throw new LabError(
      'BAD_ARGUMENT',
      'compare --against: name what to run, e.g. --bench storage or --experiment puzzle',
    );
  }
  runAgainst(ref, workloads, () => false, options);
}

export function registerCompareCommand(program: Command): void {
  const command = program
    .command('compare')
    .description(
      'compare two results files of one experiment, or two directories of them ' +
        '(matched by experiment id); exit 1 when something gated regressed',
    )
    .argument('[baseline]', 'the results file (or directory) to compare against')
    .argument('[current]', 'the results file (or directory) to judge')
    .option('--threshold <percent>', `smallest change that counts (${DEFAULT_THRESHOLD * 100}%)`)
    .option('--format <format>', `output: ${COMPARE_FORMATS.join(', ')}`, 'text')
    .option(
      '--gate-timings',
      'let raw timings fail the comparison too (they are reported either way; ratios, ' +
        'counters and measurements of 6 rounds a side are gated without it)',
    )
    .option(
      '--side-by-side',
      'set two machines or runs next to each other: the same table, ' +
        'differences beyond the noise marked changed, no verdict, exit 0',
    );
  addAgainstOptions(command, 'the named benches or experiments').action(
    (baselineFile: string | undefined, currentFile: string | undefined, options) => {
      if (options.against !== undefined) {
        compareAgainst(options.against, baselineFile, options);
        return;
      }
      refuseWithoutAgainst(options);
      if (baselineFile === undefined || currentFile === undefined) {
        throw new LabError(
          'BAD_ARGUMENT',
          'compare: two results files or directories, or --against REF with --bench or --experiment',
        );
      }
      const gate = parseGateOptions(options);
      const view =
        options.sideBySide === true ? sideBySide : (comparison: Comparison) => comparison;
      if (isDirectory(baselineFile) && isDirectory(currentFile)) {
        const pairs = readComparableSuites(baselineFile, currentFile);
        if (options.sideBySide === true && pairs[0] !== undefined)
          printMachines(pairs[0], gate.format);
        reportSuite(
          pairs.map(([baseline, current]) => view(compareDocuments(baseline, current, gate))),
          gate.format,
          'compare',
        );
        return;
      }
      const pair = readComparablePair(baselineFile, currentFile);
      if (options.sideBySide === true) printMachines(pair, gate.format);
      reportComparison(view(compareDocuments(pair[0], pair[1], gate)), gate.format, 'compare');
    },
  );
}

/** Which machine each side was measured on, before a side-by-side table. */
function printMachines(pair: readonly [NamedResults, NamedResults], format: CompareFormat): void {
  if (format === 'json') return;
  const describe = ({ file, results }: NamedResults): string => {
    const env = results.environment;
    const device = env.device?.name ?? 'no block device';
    return (
      `${file}: ${env.hostname}, ${device} (${env.filesystem.type ?? 'unknown filesystem'}), ` +
      `${env.cpuCores} cores, ${env.os}`
    );
  };
  process.stdout.write(
    `side by side, no verdict:\n  ${describe(pair[0])}\n  ${describe(pair[1])}\n\n`,
  );
}
