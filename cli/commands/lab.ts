/**
 * `loglab lab` — what `npm run lab` runs with no arguments: the quick suite of every experiment in
 * a fresh directory on this disk (or `--dir`), then the report. It ends with the headline
 * sentences and the paths of report.html and report.md, and leaves nothing behind but the report
 * folder. It does not fail where the temp dir is a tmpfs: it measures under the current directory
 * instead (mainJobPlace).
 */
import type { Command } from 'commander';
import * as os from 'node:os';
import * as path from 'node:path';
import { experiments } from '../../experiments/index.js';
import { defaultReportDir, writeReport } from '../../reports/report.js';
import { LabError } from '../../lab/errors.js';
import { classifyStorage, describeStorage } from '../../lab/probes/storage-kind.js';
import {
  ALLOW_MEMORY_HELP,
  ALLOW_MEMORY_OPTION,
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
  readonly allowMemory?: boolean;
  readonly json?: boolean;
}

/** Where the main job measures without `--dir`, and the sentence that says why, if any. */
export interface MainJobPlace {
  readonly tempParent: string;
  readonly allowMemory: boolean;
  readonly note: string | null;
}

/**
 * The OS temp dir when it is on a disk; else a fresh directory under the current directory when
 * that is; else the temp dir anyway, every figure marked as not a disk's: the main job never
 * fails for where it was started.
 */
export function mainJobPlace(tempDir: string, cwd: string): MainJobPlace {
  const temp = classifyStorage(tempDir);
  if (temp.kind === 'block') return { tempParent: tempDir, allowMemory: false, note: null };
  const here = classifyStorage(cwd);
  const tempIs = `the temp dir ${tempDir} is on ${describeStorage(temp)}, not a disk`;
  if (here.kind === 'block') {
    return {
      tempParent: cwd,
      allowMemory: false,
      note: `Measured under ${cwd} (on ` + `${describeStorage(here)}) because ${tempIs}.`,
    };
  }
  return {
    tempParent: tempDir,
    allowMemory: true,
    note:
      `Measured in the temp dir although ` +
      `${tempIs}, and ${cwd} is on ${describeStorage(here)}: pass --dir on a disk.`,
  };
}

function placeOptions(options: MainJobOptions): Partial<RunCommandOptions> {
  const allowMemory = options.allowMemory === true;
  if (options.dir !== undefined) return { dir: options.dir, allowMemory };
  const place = mainJobPlace(os.tmpdir(), process.cwd());
  if (place.note === null) return { tempParent: place.tempParent, allowMemory };
  process.stderr.write(`lab: ${place.note}\n`);
  return {
    tempParent: place.tempParent,
    allowMemory: allowMemory || place.allowMemory,
    notes: [place.note],
  };
}

export async function runMainJob(options: MainJobOptions): Promise<void> {
  const out = options.out ?? defaultReportDir(new Date());
  const json = options.json === true;
  const runOptions: RunCommandOptions = {
    quick: options.full !== true,
    out,
    json,
    ...placeOptions(options),
    ...coldReadsOption(options.coldReads),
  };
  const written = await runSelected(selectExperiments([]), runOptions);
  const report = await writeReport(
    written.map((entry) => entry.file),
    out,
    { experiments },
  );
  const lines = [
    '',
    'What this disk showed:',
    ...report.headlines.map((headline) => `  ${headline}`),
    ...report.warnings.map((warning) => `  warning: ${warning}`),
    '',
    `report: ${path.resolve(report.htmlPath)}`,
    `        ${path.resolve(report.markdownPath)}`,
  ];
  if (!json) {
    process.stdout.write(`${lines.join('\n')}\n`);
    return;
  }
  // The documents on stdout, as `run --json` prints them; what a person reads on stderr.
  process.stdout.write(
    `${JSON.stringify(
      written.map((entry) => entry.results),
      null,
      2,
    )}\n`,
  );
  process.stderr.write(`${lines.join('\n')}\n`);
}

export function registerLabCommand(program: Command): void {
  program
    .command('lab', { isDefault: true })
    .description(
      'the main job (npm run lab): every experiment, quick, on this disk, then the report',
    )
    .option('--dir <dir>', 'an existing directory on the disk to measure (default: a temp dir)')
    .option('--out <dir>', 'where results and the report go (default: loglab-report/<timestamp>)')
    .option('--full', 'full-size parameters instead of the quick ones (minutes, not seconds)')
    .option(
      '--json',
      'print the results documents as JSON on stdout (as run --json does); ' +
        'the headlines and report paths go to stderr',
    )
    .option(COLD_READS_OPTION, COLD_READS_HELP)
    .option(ALLOW_MEMORY_OPTION, ALLOW_MEMORY_HELP)
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
