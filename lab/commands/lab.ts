/**
 * `loglab lab` — what `npm run lab` runs with no arguments: the quick suite of every experiment in
 * a fresh directory on this disk (or `--dir`), then the report. It ends with the headline
 * sentences and the paths of report.html and report.md, and leaves nothing behind but the report
 * folder.
 */
import type { Command } from 'commander';
import * as path from 'node:path';
import { defaultReportDir, writeReport } from '../../reports/report.js';
import { LabError } from '../errors.js';
import {
  COLD_READS_HELP,
  COLD_READS_OPTION,
  type RunCommandOptions,
  coldReadsOption,
  runSelected,
  selectExperiments,
} from './run.js';

interface MainJobOptions {
  readonly dir?: string;
  readonly out?: string;
  readonly full?: boolean;
  readonly coldReads?: string;
}

export async function runMainJob(options: MainJobOptions): Promise<void> {
  const out = options.out ?? defaultReportDir(new Date());
  const runOptions: RunCommandOptions = {
    quick: options.full !== true,
    out,
    ...(options.dir === undefined ? {} : { dir: options.dir }),
    ...coldReadsOption(options.coldReads),
  };
  const written = await runSelected(selectExperiments([]), runOptions);
  const report = await writeReport(written.map((entry) => entry.file), out);
  const lines = [
    '',
    'What this disk showed:',
    ...report.headlines.map((headline) => `  ${headline}`),
    ...report.warnings.map((warning) => `  warning: ${warning}`),
    '',
    `report: ${path.resolve(report.htmlPath)}`,
    `        ${path.resolve(report.markdownPath)}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

export function registerLabCommand(program: Command): void {
  program
    .command('lab', { isDefault: true })
    .description('the main job (npm run lab): every experiment, quick, on this disk, then the report')
    .option('--dir <dir>', 'an existing directory on the disk to measure (default: a temp dir)')
    .option('--out <dir>', 'where results and the report go (default: loglab-report/<timestamp>)')
    .option('--full', 'full-size parameters instead of the quick ones (minutes, not seconds)')
    .option(COLD_READS_OPTION, COLD_READS_HELP)
    // As the default command it receives any word that is not a command: name it as unknown
    // rather than 'too many arguments for lab'.
    .allowExcessArguments(true)
    .action((options: MainJobOptions, command: Command) => {
      const [unknown] = command.args;
      if (unknown !== undefined) {
        throw new LabError('BAD_ARGUMENT', `unknown command '${unknown}'; see loglab --help`);
      }
      return runMainJob(options);
    });
}
