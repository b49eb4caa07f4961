/** `loglab append DIR`: one record per line of standard input. */
import type { Command } from 'commander';
import { Log } from '../../storage/log.js';
import { describeRecovery } from '../../storage/log-loader.js';
import { DURABILITY_POLICIES } from '../../storage/durability.js';
import { MAX_POSITION_BYTES } from '../../storage/units.js';
import { parseByteSize, parseChoice, parseIntegerArgument } from '../arguments.js';

interface AppendOptions {
  baseOffset?: string;
  segmentBytes?: string;
  indexInterval?: string;
  durability: string;
}

/** Splits standard input into lines (bodies without their newline), as raw bytes. */
async function readLines(input: NodeJS.ReadableStream): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  const all = Buffer.concat(chunks);
  const lines: Buffer[] = [];
  let start = 0;
  for (let newline = all.indexOf(0x0a); newline >= 0; newline = all.indexOf(0x0a, start)) {
    lines.push(all.subarray(start, newline));
    start = newline + 1;
  }
  if (start < all.length) lines.push(all.subarray(start));
  return lines;
}

export function registerAppendCommand(program: Command): void {
  program
    .command('append')
    .description('append one record per line of standard input and print the first and last offsets')
    .argument('<dir>', 'log directory (created when missing)')
    .option('--base-offset <n>', 'first offset of a new log')
    .option('--segment-bytes <size>', 'start a new segment past this size (default 64MiB)')
    .option('--index-interval <size>', 'bytes between index entries, 0 = dense (default 4096)')
    .option('--durability <policy>', `when an append is acknowledged: ${DURABILITY_POLICIES.join(', ')}`, 'none')
    .action(async (dir: string, options: AppendOptions) => {
      const log = Log.open(dir, {
        ...(options.baseOffset === undefined ? {} : { baseOffset: parseIntegerArgument('--base-offset', options.baseOffset, 0, Number.MAX_SAFE_INTEGER) }),
        ...(options.segmentBytes === undefined ? {} : { segmentBytes: parseByteSize('--segment-bytes', options.segmentBytes, 1024, MAX_POSITION_BYTES) }),
        ...(options.indexInterval === undefined ? {} : { indexIntervalBytes: parseByteSize('--index-interval', options.indexInterval) }),
        durability: parseChoice('--durability', options.durability, DURABILITY_POLICIES),
      });
      try {
        if (log.recovery.startedFrom !== 'new-log' && log.recovery.scannedBytes > 0) {
          process.stderr.write(`${describeRecovery(log.recovery)}\n`);
        }
        const lines = await readLines(process.stdin);
        if (lines.length === 0) {
          process.stdout.write(`appended 0 records; the next offset is ${log.endOffset}\n`);
          return;
        }
        const first = log.append(lines[0]!);
        let last = first;
        for (let i = 1; i < lines.length; i++) last = log.append(lines[i]!);
        await log.acknowledged(last);
        process.stdout.write(`appended ${lines.length} records: first offset ${first}, last offset ${last}\n`);
      } finally {
        log.close();
      }
    });
}
