/**
 * `loglab history add FILES…`, `loglab history show`, `loglab history check FILES…`: a results
 * history in a SQLite file (lab/history/). `add` records results files by commit and machine,
 * all of them or none; `show` lists the runs, or a metric's values across commits; `check` judges
 * new results against the last runs of the same machine with a t-test, and exits 1 when a gated
 * metric regressed, 2 when there is nothing usable to judge against.
 */
import type { Command } from 'commander';
import { parseIntegerArgument } from '../arguments.js';
import { LabError, badArgument } from '../../lab/errors.js';
import { addRuns } from '../../lab/history/add.js';
import { type CheckOptions, checkDocument } from '../../lab/history/check.js';
import { HistoryDatabase } from '../../lab/history/database.js';
import { shownFingerprint } from '../../lab/history/fingerprint.js';
import {
  type MetricValue,
  failureSentence,
  formatChecks,
  formatRuns,
  formatValues,
  testDescription,
} from '../../lab/history/history-format.js';
import { parseCommit, runRecord } from '../../lab/history/run-record.js';
import { DEFAULT_HISTORY_FILE, type OpenMode } from '../../lab/history/schema.js';
import {
  DEFAULT_BOUNDARY,
  DEFAULT_WINDOW_RUNS,
  MIN_WINDOW_RUNS,
} from '../../lab/history/t-test.js';
import { type NamedResults, readResultsInput } from '../../lab/results-documents.js';

/** A window longer than this is a typo, and would take years of commits to fill. */
const MAX_WINDOW_RUNS = 10_000;

interface DbOption {
  readonly db: string;
}

const unusable = (message: string) => new LabError('INVALID_RESULTS', `history: ${message}`);

function readInputs(inputs: readonly string[]): NamedResults[] {
  return inputs.flatMap((input) => readResultsInput(input, unusable));
}

function withHistory<T>(file: string, mode: OpenMode, work: (db: HistoryDatabase) => T): T {
  const db = HistoryDatabase.open(file, mode);
  try {
    return work(db);
  } finally {
    db.close();
  }
}

function runAdd(inputs: readonly string[], options: DbOption & { readonly commit?: string }): void {
  const commit = options.commit === undefined ? undefined : parseCommit(options.commit);
  const records = readInputs(inputs).map((doc) => runRecord(doc, commit));
  const outcome = withHistory(options.db, 'write', (db) =>
    addRuns(db, records, new Date().toISOString()),
  );
  for (const record of outcome.added) {
    process.stdout.write(
      `added ${record.sourceFile}: ${record.experimentId}, commit ${record.commit}` +
        `${record.dirty === true ? ' (dirty tree)' : ''}, machine ` +
        `${shownFingerprint(record.fingerprint)}\n`,
    );
  }
  for (const { record, stored } of outcome.skipped) {
    process.stdout.write(
      `skipped ${record.sourceFile}: already in ${options.db} (added ${stored.addedAt} ` +
        `from ${stored.sourceFile})\n`,
    );
  }
  process.stdout.write(
    `history add: ${outcome.added.length} added, ${outcome.skipped.length} already there, ` +
      `in ${options.db}\n`,
  );
}

interface ShowOptions extends DbOption {
  readonly metric?: string;
  readonly experiment?: string;
  readonly json?: boolean;
}

function metricValues(db: HistoryDatabase, options: ShowOptions): MetricValue[] {
  const runs = db
    .allRuns()
    .filter((run) => options.experiment === undefined || run.experimentId === options.experiment);
  if (options.experiment !== undefined && runs.length === 0) {
    throw badArgument('--experiment', 'an experiment the history holds', options.experiment);
  }
  const values = runs.flatMap((run) =>
    db
      .metricsOf(run.id)
      .filter((metric) => options.metric === undefined || metric.name === options.metric)
      .map((metric) => ({ run, metric })),
  );
  if (options.metric !== undefined && values.length === 0) {
    const where = options.experiment === undefined ? '' : ` of ${options.experiment}`;
    throw badArgument('--metric', `a metric the history holds${where}`, options.metric);
  }
  return values;
}

function runShow(options: ShowOptions): void {
  const json = options.json === true;
  const text = withHistory(options.db, 'read', (db) =>
    options.metric === undefined && options.experiment === undefined
      ? formatRuns(db.allRuns(), json)
      : formatValues(metricValues(db, options), json),
  );
  process.stdout.write(`${text}\n`);
}

interface CheckCliOptions extends DbOption {
  readonly window?: string;
  readonly boundary?: string;
  readonly gateTimings?: boolean;
  readonly json?: boolean;
}

/** A quantile strictly between 0.5 and 1, as Bencher's boundaries are: `0.99`. */
function parseBoundary(raw: string): number {
  const value = /^\s*0?\.\d+\s*$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(value > 0.5 && value < 1)) throw badArgument('--boundary', 'a number in (0.5, 1)', raw);
  return value;
}

function parseCheckOptions(options: CheckCliOptions): CheckOptions {
  return {
    windowRuns:
      options.window === undefined
        ? DEFAULT_WINDOW_RUNS
        : parseIntegerArgument('--window', options.window, MIN_WINDOW_RUNS, MAX_WINDOW_RUNS),
    boundary: options.boundary === undefined ? DEFAULT_BOUNDARY : parseBoundary(options.boundary),
    gateTimings: options.gateTimings === true,
  };
}

function runCheck(inputs: readonly string[], options: CheckCliOptions): void {
  const checkOptions = parseCheckOptions(options);
  const docs = readInputs(inputs);
  const checks = withHistory(options.db, 'read', (db) =>
    docs.map((doc) => checkDocument(db, doc, checkOptions)),
  );
  process.stdout.write(`${formatChecks(checks, checkOptions, options.json === true)}\n`);
  const failures = checks.flatMap((check) =>
    check.failures.map((metric) => failureSentence(metric, check.file)),
  );
  if (failures.length > 0) {
    throw new LabError(
      'CHECK_FAILED',
      `history check (${testDescription(checkOptions)}): ${failures.length} metric(s) ` +
        `regressed: ${failures.join('; ')}`,
    );
  }
}

const DB_HELP = `the history file (default: ./${DEFAULT_HISTORY_FILE})`;

export function registerHistoryCommand(program: Command): void {
  const history = program
    .command('history')
    .description(
      'a results history in a SQLite file: add results by commit and machine, show them, ' +
        'check new results against the last runs of the same machine',
    );
  history
    .command('add')
    .description('record results files (or run folders) in the history, all of them or none')
    .argument('<files...>', 'results files, or folders holding them')
    .option('--db <file>', DB_HELP, DEFAULT_HISTORY_FILE)
    .option('--commit <sha>', "the commit measured, where the files' own is missing or wrong")
    .action(runAdd);
  history
    .command('show')
    .description("the runs by commit and machine; or a metric's values across commits")
    .option('--db <file>', DB_HELP, DEFAULT_HISTORY_FILE)
    .option('--metric <name>', "this metric's values across commits")
    .option('--experiment <id>', "this experiment's values across commits")
    .option('--json', 'print JSON')
    .action(runShow);
  history
    .command('check')
    .description(
      'judge results files against the last runs of the same machine, experiment and ' +
        'parameters (t-test); exit 1 when a gated metric regressed',
    )
    .argument('<files...>', 'results files, or folders holding them')
    .option('--db <file>', DB_HELP, DEFAULT_HISTORY_FILE)
    .option('--window <runs>', `earlier runs to judge against (${DEFAULT_WINDOW_RUNS})`)
    .option('--boundary <quantile>', `the t quantile of each limit (${DEFAULT_BOUNDARY})`)
    .option('--gate-timings', 'let raw timings and measurements fail the check too')
    .option('--json', 'print JSON')
    .action(runCheck);
}
