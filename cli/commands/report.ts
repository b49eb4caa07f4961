/**
 * `loglab report FILES… [--out DIR] [--history DB]`: rebuilds a report from results files (or
 * folders of them), from one machine or several side by side, with the trends of a results
 * history across commits when given one. Files that do not validate are named on stderr and
 * left out; the rest still make the report.
 */
import type { Command } from 'commander';
import { experiments } from '../../experiments/index.js';
import { ReportError } from '../../reports/report-error.js';
import { defaultReportDir, writeReport } from '../../reports/report.js';
import { checkDirectoryArgument } from '../arguments.js';
import { LabError } from '../../lab/errors.js';
import { HistoryDatabase } from '../../lab/history/database.js';
import { buildTrend } from '../../lab/history/trend.js';
import type { TrendDocument } from '../../lab/history/trend-document.js';

interface ReportOptions {
  readonly out?: string;
  readonly history?: string;
}

/** The history's trends, read before anything is drawn: a bad history fails at once. */
function readTrend(file: string): TrendDocument {
  const db = HistoryDatabase.open(file, 'read');
  try {
    return buildTrend(db);
  } finally {
    db.close();
  }
}

async function runReport(files: readonly string[], options: ReportOptions): Promise<void> {
  const outDir = options.out ?? defaultReportDir(new Date());
  checkDirectoryArgument('--out', outDir, false);
  const trend = options.history === undefined ? {} : { trend: readTrend(options.history) };
  let output;
  try {
    // The registry charts a file written before results carried their charts, as it was.
    output = await writeReport(files, outDir, { experiments, ...trend });
  } catch (error) {
    if (error instanceof ReportError && error.code === 'NO_VALID_RESULTS') {
      throw new LabError('INVALID_RESULTS', error.message);
    }
    throw error;
  }
  for (const warning of output.warnings) process.stderr.write(`loglab: left out ${warning}\n`);
  for (const warning of output.chartWarnings) process.stderr.write(`loglab: chart ${warning}\n`);
  for (const headline of output.headlines) process.stdout.write(`${headline}\n`);
  process.stdout.write(`report: ${output.htmlPath}\nreport: ${output.markdownPath}\n`);
}

export function registerReportCommand(program: Command): void {
  program
    .command('report')
    .description(
      'write report.md, report.html and charts from results files; several ' +
        'machines or runs of one experiment share a table and a chart',
    )
    .argument('<files...>', 'results files, or folders holding them')
    .option('--out <dir>', 'folder for the report (default: ./loglab-report/<timestamp>/)')
    .option(
      '--history <db>',
      "a results history ('loglab history add'): each experiment gains charts of its gated " +
        'metrics across commits',
    )
    .action(runReport);
}
