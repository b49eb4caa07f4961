/** `loglab read DIR --offset N [--count K]`: print bodies, never a corrupt one. */
import * as fs from 'node:fs';
import type { Command } from 'commander';
import { Log } from '../../storage/log.js';
import { parseIntegerArgument } from '../arguments.js';
import { LabError } from '../errors.js';

export function registerReadCommand(program: Command): void {
  program
    .command('read')
    .description('print the bodies of records from an offset, one per line; a corrupt record exits 1')
    .argument('<dir>', 'log directory')
    .requiredOption('--offset <n>', 'first offset to print')
    .option('--count <k>', 'how many records to print', '1')
    .action((dir: string, options: { offset: string; count: string }) => {
      const offset = parseIntegerArgument('--offset', options.offset, 0, Number.MAX_SAFE_INTEGER);
      const count = parseIntegerArgument('--count', options.count, 1, Number.MAX_SAFE_INTEGER);
      if (!fs.existsSync(dir)) throw new LabError('BAD_ARGUMENT', `<dir>: ${dir} does not exist`);
      const log = Log.open(dir);
      try {
        log.read(offset);
        const reader = log.reader(offset);
        for (let printed = 0; printed < count; printed++) {
          const record = reader.next();
          if (record === null) break;
          process.stdout.write(Buffer.concat([record.body, Buffer.from('\n')]));
        }
      } finally {
        log.close();
      }
    });
}
