/** `loglab dump DIR_OR_FILE`: segment files for people, like kafka-dump-log.sh. */
import type { Command } from 'commander';
import { NodeFileIO } from '../../storage/file-io.js';
import { dumpSegment, segmentsToDump, type DumpEntry, type DumpedIndexEntry, type DumpedRecord } from '../../storage/dump.js';
import { DEFAULT_MAX_RECORD_BYTES, RECORD_HEADER_BYTES } from '../../storage/record.js';
import { readRecordLimit } from '../../storage/record-limit.js';
import { MAX_POSITION_BYTES } from '../../storage/units.js';
import { parseByteSize } from '../arguments.js';
import { LabError } from '../errors.js';

interface DumpFlags {
  records?: boolean;
  index?: boolean;
  timeindex?: boolean;
  verify?: boolean;
  json?: boolean;
  maxRecordBytes?: string;
}

function formatText(entry: DumpEntry): string {
  switch (entry.type) {
    case 'record': {
      const problem = entry.valid ? '' : ` problem: ${entry.problem}`;
      return `${entry.segment} offset: ${entry.offset} position: ${entry.position} size: ${entry.sizeBytes} crc: ${entry.crc} valid: ${entry.valid}${problem}`;
    }
    case 'index': {
      const validity = entry.valid === undefined ? '' : ` valid: ${entry.valid}${entry.problem ? ` problem: ${entry.problem}` : ''}`;
      return `${entry.segment} offset: ${entry.offset} position: ${entry.position}${validity}`;
    }
    case 'timeindex':
      return `${entry.segment} timestamp: ${entry.timestampMs} offset: ${entry.offset}`;
    case 'zeros':
      return `${entry.segment} zeros: ${entry.sizeBytes} bytes from position ${entry.position} ` +
        '(preallocated space after the last record; opening the log cuts it)';
  }
}

export function registerDumpCommand(program: Command): void {
  program
    .command('dump')
    .description('print records, index and time-index entries of a log directory or one segment file')
    .argument('<dir-or-file>', 'log directory, or a .log/.index/.timeindex file')
    .option('--records', 'print every record (the default when nothing else is asked for)')
    .option('--index', 'print offset index entries')
    .option('--timeindex', 'print time index entries')
    .option('--verify', 'check every record and index entry; exit 1 when anything is invalid')
    .option('--json', 'one JSON object per line')
    .option('--max-record-bytes <size>', 'the record size limit to check against (default: the one stored with the log, else 1MiB)')
    .action((target: string, flags: DumpFlags) => {
      const io = new NodeFileIO();
      const nothingAsked = !flags.records && !flags.index && !flags.timeindex && !flags.verify;
      const options = {
        records: Boolean(flags.records) || nothingAsked,
        index: Boolean(flags.index),
        timeIndex: Boolean(flags.timeindex),
        verify: Boolean(flags.verify),
      };
      const { dir, baseOffsets } = segmentsToDump(io, target);
      const maxRecordBytes = flags.maxRecordBytes === undefined
        ? readRecordLimit(io, dir) ?? DEFAULT_MAX_RECORD_BYTES
        : parseByteSize('--max-record-bytes', flags.maxRecordBytes, RECORD_HEADER_BYTES, MAX_POSITION_BYTES);
      let invalid: DumpedRecord | DumpedIndexEntry | null = null;
      let invalidCount = 0;
      const checked = { records: 0, index: 0 };
      for (const base of baseOffsets) {
        for (const entry of dumpSegment(io, dir, base, { ...options, maxRecordBytes, onChecked: (type) => checked[type]++ })) {
          if ((entry.type === 'record' || entry.type === 'index') && entry.valid === false) {
            invalid ??= entry;
            invalidCount++;
          }
          process.stdout.write(`${flags.json ? JSON.stringify(entry) : formatText(entry)}\n`);
        }
      }
      if (options.verify) {
        process.stderr.write(
          `verified ${baseOffsets.length} segment(s): ${checked.records} records, ${checked.index} index entries, ${invalidCount} invalid\n`,
        );
      }
      if (options.verify && invalid !== null) {
        throw new LabError(
          'CHECK_FAILED',
          `verify found ${invalidCount} invalid entr${invalidCount === 1 ? 'y' : 'ies'}; the first in ${invalid.segment} at position ${invalid.position} (${invalid.problem})` +
            (invalid.problem === 'length above maximum'
              ? `; if the log takes records over ${maxRecordBytes} bytes, pass its limit with --max-record-bytes`
              : ''),
        );
      }
    });
}
