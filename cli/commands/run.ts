/**
 * `loglab run [ids…]`: runs experiments (all of them without ids), each in a fresh directory of
 * its own under `--dir` (default: a fresh directory under the OS temp dir), writes one results
 * file per experiment to `--out` (default: `loglab-report/<timestamp>/`), and ends by writing
 * the report (report.md, report.html, charts) in the same folder.
 *
 * loglab deletes only directories it created and marked (owned-dir.ts): each experiment's data
 * directory when it ends, and the temp directory when it made one — never `--dir` itself.
 *
 * It refuses (NOT_A_DISK, exit 2) to measure a directory that is not on a disk (tmpfs, zram,
 * overlay; storage-kind.ts) unless `--allow-memory` says to; the results then say so.
 */
import type { Command } from 'commander';
import * as os from 'node:os';
import * as path from 'node:path';
import { experiments } from '../../experiments/index.js';
import { checkDirectoryArgument, parseChoice, parsePositiveNumberArgument } from '../arguments.js';
import { COLD_READ_MODES, type ColdReadMode } from '../../lab/cold-reads.js';
import { LabError } from '../../lab/errors.js';
import { type Experiment, runExperiment } from '../../lab/experiment.js';
import { formatFigure, formatInterval } from '../../lab/format.js';
import { createOwnedDir, removeOwnedDir } from '../../lab/owned-dir.js';
import { type ProgressReporter, progressFor } from '../../lab/progress.js';
import { SuiteProgress } from '../../lab/suite-progress.js';
import { classifyStorage, describeStorage } from '../../lab/probes/storage-kind.js';
import { type Metric, type Results, writeResultsFile } from '../../lab/results.js';
import { writeReport } from '../../reports/report.js';

/** The longest `--seconds` accepted: a day. */
export const MAX_SECONDS = 86_400;

export interface RunCommandOptions {
  readonly dir?: string;
  readonly quick?: boolean;
  readonly seconds?: number;
  readonly out?: string;
  readonly json?: boolean;
  /** How cold phases empty the page cache (cold-reads.ts); `auto` by default. */
  readonly coldReads?: ColdReadMode;
  /** Measure a directory that is not on a disk (tmpfs, overlay) rather than refuse. */
  readonly allowMemory?: boolean;
  /** Where the fresh directory goes without `--dir`; the OS temp dir by default. */
  readonly tempParent?: string;
  /** Sentences for every experiment's notes (why it measured where it did). */
  readonly notes?: readonly string[];
}

export const ALLOW_MEMORY_OPTION = '--allow-memory';
export const ALLOW_MEMORY_HELP =
  'measure a directory that is not on a disk (tmpfs, overlay); ' + 'the results say so';

/** Throws NOT_A_DISK when `dir` is not on a block device and memory was not allowed. */
export function checkOnDisk(command: string, dir: string, allowMemory: boolean): void {
  const storage = classifyStorage(dir);
  if (storage.kind === 'block' || allowMemory) return;
  throw new LabError(
    'NOT_A_DISK',
    `${command}: ${dir} is on ${describeStorage(storage)}, not a disk, so its figures would not ` +
      `be a disk's; pass --dir on a disk, or ${ALLOW_MEMORY_OPTION} to measure it anyway`,
  );
}

export const COLD_READS_OPTION = '--cold-reads <mode>';
export const COLD_READS_HELP =
  `how cold reads avoid the page cache: ${COLD_READ_MODES.join(' | ')} ` +
  '(auto: drop the cache when root may, else O_DIRECT)';

/** The `--cold-reads` value, checked; commander hands it over as a string. */
export function coldReadsOption(raw: string | undefined): { coldReads?: ColdReadMode } {
  return raw === undefined ? {} : { coldReads: parseChoice('--cold-reads', raw, COLD_READ_MODES) };
}

export function selectExperiments(ids: readonly string[]): Experiment[] {
  const known = experiments.map((experiment) => experiment.id);
  if (known.length === 0) {
    throw new LabError(
      'UNKNOWN_EXPERIMENT',
      'run: no experiment to run: none is registered yet (experiments/index.ts)',
    );
  }
  if (ids.length === 0) return [...experiments];
  return ids.map((id) => {
    const experiment = experiments.find((candidate) => candidate.id === id);
    if (experiment === undefined) {
      throw new LabError(
        'UNKNOWN_EXPERIMENT',
        `run: unknown experiment '${id}'; known: ${known.join(', ')} (see loglab list)`,
      );
    }
    return experiment;
  });
}

function defaultOutDir(): string {
  return path.join('loglab-report', new Date().toISOString().replace(/[:.]/g, '-'));
}

/** Removes the owned directories if the run is interrupted, then exits as the signal asks. */
function cleanUpOnSignal(owned: Set<string>): () => void {
  const handlers = (['SIGINT', 'SIGTERM'] as const).map((signal) => {
    const handler = () => {
      for (const dir of owned) removeOwnedDir(dir);
      process.exit(signal === 'SIGINT' ? 130 : 143);
    };
    process.once(signal, handler);
    return () => process.removeListener(signal, handler);
  });
  return () => handlers.forEach((remove) => remove());
}

/** Why a measured figure has no interval: too few rounds, or one figure over every operation. */
function noInterval(metric: Metric): string {
  if (metric.samples === undefined && (metric.count ?? 1) > 1)
    return `  (one figure over ${formatFigure(metric.count!)} operations, no interval)`;
  return `  (n=${metric.count ?? 1}, too few for an interval)`;
}

/** A figure with its 95% interval, or why it has none. */
function metricLine(metric: Metric): string {
  const interval =
    metric.ci95 !== undefined
      ? `  ${formatInterval(metric.ci95)}`
      : metric.class === 'counter'
        ? ''
        : noInterval(metric);
  const tail = metric.p99 === undefined ? '' : `  p99 ${formatFigure(metric.p99)}`;
  return `  ${metric.name}  ${formatFigure(metric.median)} ${metric.unit}${interval}${tail}`;
}

export function describe(results: Results, file: string): string {
  const lines = [`${results.experiment.id}: ${results.experiment.question}`];
  if (results.headline !== undefined) lines.push(`  ${results.headline}`);
  lines.push(...results.metrics.map(metricLine));
  lines.push(...results.notes.map((note) => `  note: ${note}`));
  lines.push(`  results: ${file}`);
  return lines.join('\n');
}

async function runOne(
  experiment: Experiment,
  base: string,
  options: RunCommandOptions,
  progress: ProgressReporter,
  owned: Set<string>,
): Promise<Results> {
  const dir = createOwnedDir(base, `${experiment.id}-`);
  owned.add(dir);
  try {
    progress.phase(experiment.id);
    return await runExperiment(experiment, {
      dir,
      quick: options.quick === true,
      progress,
      ...(options.seconds === undefined ? {} : { seconds: options.seconds }),
      ...(options.coldReads === undefined ? {} : { cacheControl: { mode: options.coldReads } }),
      ...(options.notes === undefined ? {} : { notes: options.notes }),
    });
  } finally {
    removeOwnedDir(dir);
    owned.delete(dir);
  }
}

/** Runs the experiments, then writes the report beside their results files. */
async function runCommand(ids: readonly string[], options: RunCommandOptions): Promise<void> {
  const out = options.out ?? defaultOutDir();
  const written = await runSelected(selectExperiments(ids), { ...options, out });
  const report = await writeReport(
    written.map((entry) => entry.file),
    out,
    { experiments },
  );
  const paths = `report: ${path.resolve(report.htmlPath)}\n        ${path.resolve(report.markdownPath)}\n`;
  if (options.json === true) {
    process.stdout.write(
      `${JSON.stringify(
        written.map((entry) => entry.results),
        null,
        2,
      )}\n`,
    );
  } else {
    const summaries = written.map((entry) => describe(entry.results, entry.file));
    process.stdout.write(`${summaries.join('\n\n')}\n\n${paths}`);
  }
}

/**
 * Runs experiments one after another, each in its own owned directory, and writes their results
 * files; shared by `run` and `bench`.
 */
export async function runSelected(
  selected: readonly Experiment[],
  options: RunCommandOptions,
): Promise<Array<{ results: Results; file: string }>> {
  if (options.dir !== undefined) checkDirectoryArgument('--dir', options.dir, true);
  const out = options.out ?? defaultOutDir();
  checkDirectoryArgument('--out', out, false);
  const parent = options.dir ?? options.tempParent ?? os.tmpdir();
  checkOnDisk('run', parent, options.allowMemory === true);
  const owned = new Set<string>();
  const base = options.dir ?? createOwnedDir(parent, 'loglab-');
  if (options.dir === undefined) owned.add(base);
  const stopCleanup = cleanUpOnSignal(owned);
  const progress = progressFor(process.stderr, { json: options.json === true });
  const suite = new SuiteProgress(process.stderr, progress, selected.length);
  const written: Array<{ results: Results; file: string }> = [];
  try {
    for (const experiment of selected) {
      suite.start(experiment.id);
      const results = await runOne(experiment, base, options, progress, owned);
      suite.end(experiment.id);
      const file = path.join(out, `${experiment.id}.json`);
      writeResultsFile(file, results);
      written.push({ results, file });
    }
  } finally {
    progress.done();
    for (const dir of owned) removeOwnedDir(dir);
    stopCleanup();
  }
  return written;
}

export function registerRunCommand(program: Command): void {
  program
    .command('run')
    .description('run experiments (all without ids) and write one results file each')
    .argument('[ids...]', 'experiment ids, as `loglab list` prints them')
    .option('--dir <dir>', 'an existing directory on the disk to measure (default: a temp dir)')
    .option('--quick', 'small parameters that finish in seconds')
    .option('--seconds <n>', `time budget per experiment, in seconds (0, ${MAX_SECONDS}]`)
    .option('--out <dir>', 'where results files go (default: loglab-report/<timestamp>)')
    .option('--json', 'print the results documents as JSON instead of a summary')
    .option(COLD_READS_OPTION, COLD_READS_HELP)
    .option(ALLOW_MEMORY_OPTION, ALLOW_MEMORY_HELP)
    .action((ids: string[], raw: RunCommandOptions & { seconds?: string; coldReads?: string }) => {
      const { seconds, coldReads, ...rest } = raw;
      const checked = { ...rest, ...coldReadsOption(coldReads) };
      if (seconds === undefined) return runCommand(ids, checked);
      const what = 'a number of seconds';
      const parsed = parsePositiveNumberArgument('--seconds', seconds, MAX_SECONDS, what);
      return runCommand(ids, { ...checked, seconds: parsed });
    });
}
