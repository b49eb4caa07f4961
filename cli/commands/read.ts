/**
 * `loglab read DIR --offset N [--count K]`: print bodies, never a corrupt one. Reading never
 * creates or changes a file: the log is opened read-only (no lock, no recovery written back), so
 * a mistyped path is refused instead of becoming a new log.
 */
import * as fs from 'node:fs';
import type { Command } from 'commander';
import { Log } from '../../storage/log/log.js';
import type { LogOptions } from '../../storage/log/log-config.js';
import { parseIntegerArgument } from '../arguments.js';
import { badArgument } from '../../lab/errors.js';

/**
 * Typed so that it compiles both before and after `LogOptions` gains `readOnly`; once it has,
 * this is plain `{ readOnly: true }`.
 */
const READ_ONLY: LogOptions & { readonly readOnly: true } = { readOnly: true };

function checkLogDirectory(dir: string): void {
  if (!fs.existsSync(dir)) throw badArgument('<dir>', 'a log directory', dir, 'it does not exist');
  if (!fs.statSync(dir).isDirectory()) {
    throw badArgument('<dir>', 'a log directory', dir, 'it is a file; dump reads single segments');
  }
}

function printRecords(log: Log, offset: number, count: number): void {
  // Reading the first record first makes an offset outside the log an error, not empty output.
  log.read(offset);
  const reader = log.reader(offset);
  for (let printed = 0; printed < count; printed++) {
    const record = reader.next();
    if (record === null) break;
    process.stdout.write(Buffer.concat([record.body, Buffer.from('\n')]));
  }
}

export function registerReadCommand(program: Command): void {
  program
    .command('read')
    .description(
      'print the bodies of records from an offset, one per line; a corrupt record exits 1',
    )
    .argument('<dir>', 'log directory (read only: nothing in it is created or changed)')
    .requiredOption('--offset <n>', 'first offset to print')
    .option('--count <k>', 'how many records to print', '1')
    .action((dir: string, options: { offset: string; count: string }) => {
      const offset = parseIntegerArgument('--offset', options.offset, 0, Number.MAX_SAFE_INTEGER);
      const count = parseIntegerArgument('--count', options.count, 1, Number.MAX_SAFE_INTEGER);
      checkLogDirectory(dir);
      const log = Log.open(dir, READ_ONLY);
      try {
        printRecords(log, offset, count);
      } finally {
        void log.close();
      }
    });
}
