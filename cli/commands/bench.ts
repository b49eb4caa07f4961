/**
 * `loglab bench <suite…>`: runs a bench (the storage core against the plain file-system loop, the
 * queue designs) on this disk, prints each figure beside the target its issue set, and writes the
 * results file like `run` does.
 */
import type { Command } from 'commander';
import { benchSuites } from '../../experiments/bench/index.js';
import { type Target, type TargetCheck, checkTargets } from '../../experiments/bench/targets.js';
import { parseChoice } from '../arguments.js';
import { formatFigure, formatInterval } from '../../lab/format.js';
import {
  ALLOW_MEMORY_HELP,
  ALLOW_MEMORY_OPTION,
  type RunCommandOptions,
  describe,
  runSelected,
} from './run.js';

function boundOf(target: Target): string {
  return target.atLeast !== undefined
    ? `>= ${formatFigure(target.atLeast)}`
    : `<= ${formatFigure(target.atMost ?? 0)}`;
}

/** The figure and, where it has one, its 95% interval and whether that spans the bound. */
function shownValue({ value, ci95, clearOfNoise }: TargetCheck): string {
  if (value === null) return '-';
  if (ci95 === null) return formatFigure(value);
  const interval = `95% interval ${formatInterval(ci95)}`;
  return `${formatFigure(value)}, ${interval}${clearOfNoise === true ? '' : ' spans the bound'}`;
}

/**
 * One line per target, then a tally: how many were met and missed, of each how many had an
 * interval spanning the bound or none, and how many the run did not measure (a quick run's).
 */
export function targetLines(checks: readonly TargetCheck[]): string[] {
  const lines = checks.map((check) => {
    const verdict = check.met === null ? 'not measured' : check.met ? 'met' : 'MISSED';
    const { metric, why } = check.target;
    return `  ${verdict.padEnd(12)} ${metric} = ${shownValue(check)} (target ${boundOf(check.target)}: ${why})`;
  });
  const tally = (met: boolean) => {
    const matching = checks.filter((check) => check.met === met);
    const count = (clearOfNoise: boolean | null) =>
      matching.filter((check) => check.clearOfNoise === clearOfNoise).length;
    const parts = [
      [count(false), 'with an interval spanning the bound'],
      [count(null), 'without an interval'],
    ].filter(([n]) => n !== 0);
    const detail = parts.length === 0 ? '' : ` (${parts.map((part) => part.join(' ')).join(', ')})`;
    return `${matching.length} ${met ? 'met' : 'missed'}${detail}`;
  };
  const unmeasured = checks.filter((check) => check.met === null).length;
  const notMeasured = unmeasured === 0 ? '' : `, ${unmeasured} not measured`;
  return [...lines, `  ${tally(true)}, ${tally(false)}${notMeasured}`];
}

export function registerBenchCommand(program: Command): void {
  const names = benchSuites.map((suite) => suite.name);
  program
    .command('bench')
    .description(`benchmark the storage core on this disk: ${names.join(', ')}`)
    .argument('<suites...>', `which benches: ${names.join(', ')}`)
    .option('--dir <dir>', 'an existing directory on the disk to measure (default: a temp dir)')
    .option('--quick', 'small parameters that finish in about a minute')
    .option('--out <dir>', 'where results files go (default: loglab-report/<timestamp>)')
    .option('--json', 'print the results documents as JSON instead of a summary')
    .option(ALLOW_MEMORY_OPTION, ALLOW_MEMORY_HELP)
    .action(async (requested: string[], options: RunCommandOptions) => {
      const suites = requested.map(
        (name) => benchSuites.find((suite) => suite.name === parseChoice('<suites>', name, names))!,
      );
      const written = await runSelected(
        suites.map((suite) => suite.experiment),
        options,
      );
      if (options.json === true) {
        process.stdout.write(
          `${JSON.stringify(
            written.map((entry) => entry.results),
            null,
            2,
          )}\n`,
        );
        return;
      }
      const blocks = written.map(({ results, file }, i) =>
        [
          describe(results, file),
          '  targets:',
          ...targetLines(checkTargets(results, suites[i]!.targets)),
        ].join('\n'),
      );
      process.stdout.write(`${blocks.join('\n\n')}\n`);
    });
}
