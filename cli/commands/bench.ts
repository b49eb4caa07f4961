/**
 * `loglab bench <suite…>`: runs a bench (the storage core against the plain file-system loop, the
 * queue designs) on this disk, prints each figure beside the target its issue set, and writes the
 * results file like `run` does.
 */
import type { Command } from 'commander';
import { benchSuites } from '../../experiments/bench/index.js';
import { checkTargets } from '../../experiments/bench/targets.js';
import { parseChoice } from '../arguments.js';
import { formatFigure } from '../../lab/format.js';
import {
  ALLOW_MEMORY_HELP,
  ALLOW_MEMORY_OPTION,
  type RunCommandOptions,
  describe,
  runSelected,
} from './run.js';

function targetLines(
  suite: (typeof benchSuites)[number],
  results: Parameters<typeof checkTargets>[0],
): string[] {
  return checkTargets(results, suite.targets).map(({ target, value, met }) => {
    const bound =
      target.atLeast !== undefined
        ? `>= ${formatFigure(target.atLeast)}`
        : `<= ${formatFigure(target.atMost ?? 0)}`;
    const verdict = met === null ? 'not measured' : met ? 'met' : 'MISSED';
    const shown = value === null ? '-' : formatFigure(value);
    return `  ${verdict.padEnd(12)} ${target.metric} = ${shown} (target ${bound}: ${target.why})`;
  });
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
        [describe(results, file), '  targets:', ...targetLines(suites[i]!, results)].join('\n'),
      );
      process.stdout.write(`${blocks.join('\n\n')}\n`);
    });
}
