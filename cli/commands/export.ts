/**
 * `loglab export FILES… --format github-action-benchmark|bencher|junit`: results files (or
 * directories of them) in the formats CI tools read, each metric's direction taken from its
 * contract (docs/results-format.md):
 *
 * - `github-action-benchmark`: the `customBiggerIsBetter` / `customSmallerIsBetter` JSON; one
 *   file holds one direction, so `--direction` picks one, or `--out-dir` writes both.
 * - `bencher`: Bencher Metric Format JSON.
 * - `junit`: a JUnit XML report of the comparison with `--baseline`, metric by metric.
 *
 * Informational metrics have no better direction and are left out of the two JSON formats;
 * stderr names them. Export writes and never judges: it exits 0 when a metric regressed, as the
 * report says so; `loglab compare` is the gate.
 */
import type { Command } from 'commander';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkDirectoryArgument, parseChoice, parsePercentArgument } from '../arguments.js';
import { DEFAULT_THRESHOLD, compareDocuments } from '../../lab/compare/compare.js';
import { LabError } from '../../lab/errors.js';
import { toBencherMetricFormat } from '../../lab/export/bencher.js';
import {
  type BetterDirection,
  GITHUB_ACTION_BENCHMARK_TOOL,
  type LeftOut,
  toGithubActionBenchmark,
} from '../../lab/export/github-action-benchmark.js';
import {
  inferredContractWarnings,
  pairWithBaseline,
  readExportInputs,
} from '../../lab/export/inputs.js';
import { toJunitXml } from '../../lab/export/junit.js';

export const EXPORT_FORMATS = ['github-action-benchmark', 'bencher', 'junit'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
const DIRECTIONS: readonly BetterDirection[] = ['higher', 'lower'];

interface ExportOptions {
  readonly format: string;
  readonly out?: string;
  readonly outDir?: string;
  readonly direction?: string;
  readonly baseline?: string;
  readonly threshold?: string;
  readonly gateTimings?: boolean;
}

const warn = (message: string) => process.stderr.write(`loglab: export: ${message}\n`);
const usage = (message: string) => new LabError('BAD_ARGUMENT', message);

/** Options that belong to another format are refused, not ignored. */
function refuseForeignOptions(format: ExportFormat, options: ExportOptions): void {
  const owners: readonly [keyof ExportOptions, string, ExportFormat][] = [
    ['direction', '--direction', 'github-action-benchmark'],
    ['outDir', '--out-dir', 'github-action-benchmark'],
    ['baseline', '--baseline', 'junit'],
    ['threshold', '--threshold', 'junit'],
    ['gateTimings', '--gate-timings', 'junit'],
  ];
  for (const [key, flag, owner] of owners) {
    if (options[key] !== undefined && format !== owner) {
      throw usage(`${flag}: only with --format ${owner}, not ${format}`);
    }
  }
}

/** Writes to `file` (its folder created when missing), or to stdout without one. */
function emit(text: string, file: string | undefined, what: string): void {
  if (file === undefined) {
    process.stdout.write(text);
    return;
  }
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  fs.writeFileSync(file, text);
  process.stdout.write(`export: wrote ${what} to ${file}\n`);
}

function warnLeftOut(leftOut: readonly LeftOut[]): void {
  for (const { experimentId, names } of leftOut) {
    warn(
      `left out ${names.length} informational metric(s) of ${experimentId} (no direction ` +
        `is better): ${names.join(', ')}`,
    );
  }
}

function exportGithubActionBenchmark(files: readonly string[], options: ExportOptions): void {
  const directions =
    options.direction === undefined
      ? [...DIRECTIONS]
      : [parseChoice('--direction', options.direction, DIRECTIONS)];
  if (options.outDir === undefined && directions.length > 1) {
    throw usage(
      '--direction: github-action-benchmark reads one direction a file: pass ' +
        '--direction higher or --direction lower, or --out-dir DIR for both',
    );
  }
  if (options.outDir !== undefined && options.out !== undefined) {
    throw usage('--out: not with --out-dir, which names its files itself');
  }
  if (options.outDir !== undefined) checkDirectoryArgument('--out-dir', options.outDir, false);
  const docs = readExportInputs(files);
  inferredContractWarnings(docs).forEach(warn);
  for (const direction of directions) {
    const tool = GITHUB_ACTION_BENCHMARK_TOOL[direction];
    const exported = toGithubActionBenchmark(docs, direction);
    if (direction === directions[0]) warnLeftOut(exported.informational);
    if (exported.entries.length === 0) {
      warn(`no metric is ${direction}-is-better: ${tool} gets an empty list`);
    }
    if (directions.length === 1 && exported.otherDirectionCount > 0) {
      const other = direction === 'higher' ? 'lower' : 'higher';
      warn(
        `${exported.otherDirectionCount} ${other}-is-better metric(s) are not in this file; ` +
          `--direction ${other} writes them`,
      );
    }
    const file =
      options.outDir === undefined ? options.out : path.join(options.outDir, `${tool}.json`);
    emit(
      `${JSON.stringify(exported.entries, null, 2)}\n`,
      file,
      `${exported.entries.length} metric(s) for tool: ${tool}`,
    );
  }
}

function exportBencher(files: readonly string[], options: ExportOptions): void {
  const docs = readExportInputs(files);
  inferredContractWarnings(docs).forEach(warn);
  const exported = toBencherMetricFormat(docs);
  warnLeftOut(exported.informational);
  const { higher, lower } = exported.measures;
  const both = higher.filter((slug) => lower.includes(slug));
  if (both.length > 0) {
    warn(
      `measure(s) better higher in some benchmarks and lower in others: ${both.join(', ')}; ` +
        'one Bencher threshold cannot serve both',
    );
  }
  const list = (slugs: readonly string[]) => (slugs.length === 0 ? '-' : slugs.join(', '));
  warn(
    `for Bencher thresholds: higher is better (a lower boundary): ${list(higher)}; ` +
      `lower is better (an upper boundary): ${list(lower)}`,
  );
  const benchmarks = Object.keys(exported.bmf).length;
  emit(`${JSON.stringify(exported.bmf, null, 2)}\n`, options.out, `${benchmarks} benchmark(s)`);
}

function exportJunit(files: readonly string[], options: ExportOptions): void {
  if (options.baseline === undefined) {
    throw usage(
      '--baseline: junit reports a comparison: pass the results file or directory ' +
        'to compare with',
    );
  }
  const gate = {
    thresholdRatio:
      options.threshold === undefined
        ? DEFAULT_THRESHOLD
        : parsePercentArgument('--threshold', options.threshold),
    gateTimings: options.gateTimings === true,
  };
  const pairs = pairWithBaseline(readExportInputs(files), options.baseline);
  inferredContractWarnings(pairs.flat()).forEach(warn);
  const comparisons = pairs.map(([baseline, current]) => compareDocuments(baseline, current, gate));
  const failures = comparisons.reduce((sum, comparison) => sum + comparison.failures.length, 0);
  const tests = comparisons.reduce((sum, comparison) => sum + comparison.metrics.length, 0);
  emit(toJunitXml(comparisons), options.out, `${tests} test(s), ${failures} failure(s)`);
}

function exportCommand(files: readonly string[], options: ExportOptions): void {
  const format = parseChoice<ExportFormat>('--format', options.format, EXPORT_FORMATS);
  refuseForeignOptions(format, options);
  if (options.out !== undefined) {
    checkDirectoryArgument('--out', path.dirname(path.resolve(options.out)), false);
  }
  if (format === 'github-action-benchmark') exportGithubActionBenchmark(files, options);
  else if (format === 'bencher') exportBencher(files, options);
  else exportJunit(files, options);
}

export function registerExportCommand(program: Command): void {
  program
    .command('export')
    .description(
      'write results files in the formats CI tools read: github-action-benchmark, ' +
        'Bencher (BMF), or a JUnit report of a comparison',
    )
    .argument('<files...>', "results files, or directories of them (a run's --out folder)")
    .requiredOption('--format <format>', `one of ${EXPORT_FORMATS.join(', ')}`)
    .option('--out <file>', 'write to this file instead of stdout')
    .option(
      '--direction <direction>',
      'github-action-benchmark: higher (customBiggerIsBetter) ' +
        'or lower (customSmallerIsBetter)',
    )
    .option(
      '--out-dir <dir>',
      'github-action-benchmark: write customBiggerIsBetter.json and ' +
        'customSmallerIsBetter.json here (only the one of --direction with it)',
    )
    .option('--baseline <path>', 'junit: the results file or directory to compare with')
    .option(
      '--threshold <percent>',
      `junit: smallest change that counts (${DEFAULT_THRESHOLD * 100}%)`,
    )
    .option('--gate-timings', 'junit: let raw timings fail too')
    .action(exportCommand);
}
