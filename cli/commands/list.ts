/** `loglab list`: the experiments `run` knows, each with the question it answers. */
import type { Command } from 'commander';
import { experiments } from '../../experiments/index.js';

export function registerListCommand(program: Command): void {
  program
    .command('list')
    .description('list the experiments with the question each one answers')
    .option('--json', 'print the list as JSON')
    .action((options: { json?: boolean }) => {
      const rows = experiments.map((experiment) => ({
        id: experiment.id,
        question: experiment.question,
        params: experiment.params,
        seed: experiment.seed,
      }));
      if (options.json === true) {
        process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
        return;
      }
      if (rows.length === 0) {
        process.stdout.write('no experiments are registered yet (experiments/index.ts)\n');
        return;
      }
      const width = Math.max(...rows.map((row) => row.id.length));
      for (const row of rows) process.stdout.write(`${row.id.padEnd(width)}  ${row.question}\n`);
    });
}
