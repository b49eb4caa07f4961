/**
 * `loglab dump DIR_OR_FILE`: segment files for people, like kafka-dump-log.sh. It reads the files
 * as they are, never opens the log, and so never creates, recovers or changes anything.
 */
import type { Command } from 'commander';
import { NodeFileIO } from '../../storage/file-io.js';
import { dumpSegment, segmentsToDump, type DumpEntry, type DumpedIndexEntry, type DumpedRecord } from '../../storage/dump.js';
import { DEFAULT_MAX_RECORD_BYTES, RECORD_HEADER_BYTES } from '../../storage/record.js';
import { readRecordLimit } from '../../storage/record-limit.js';
import { MAX_POSITION_BYTES } from '../../storage/units.js';
import { StorageError } from '../../storage/errors.js';
import { parseByteSize } from '../arguments.js';
import { LabError, badArgument } from '../errors.js';

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

const NOT_A_SEGMENT = "it is a file whose name is not a segment's " +
  '(<20-digit base offset>.log, .index or .timeindex)';

/** The segments `target` names; a path with none is refused (exit 2), never dumped as empty. */
function segmentsOf(io: NodeFileIO, target: string): { dir: string; baseOffsets: number[] } {
  let found;
  try {
    found = segmentsToDump(io, target);
  } catch (error) {
    const notADir = error instanceof StorageError && error.context.reason === 'ENOTDIR';
    if (!notADir) throw error;
    throw badArgument('<dir-or-file>', 'a log directory or a segment file', target, NOT_A_SEGMENT);
  }
  if (found.baseOffsets.length === 0) {
    const message = `<dir-or-file>: ${target} holds no log segments; check the path`;
    throw new LabError('BAD_ARGUMENT', message);
  }
  return found;
}

interface Checked {
  records: number;
  index: number;
}

/** `--verify`'s tally: one JSON line on stdout with `--json`, else a line of text on stderr. */
function printSummary(segments: number, checked: Checked, invalid: number, json: boolean): void {
  const { records, index: indexEntries } = checked;
  if (json) {
    const summary = { type: 'summary', segments, records, indexEntries, invalid };
    process.stdout.write(`${JSON.stringify(summary)}\n`);
    return;
  }
  process.stderr.write(`verified ${segments} segment(s): ${records} records, ` +
    `${indexEntries} index entries, ${invalid} invalid\n`);
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
      const { dir, baseOffsets } = segmentsOf(io, target);
      const maxRecordBytes = flags.maxRecordBytes === undefined
        ? readRecordLimit(io, dir) ?? DEFAULT_MAX_RECORD_BYTES
        : parseByteSize('--max-record-bytes', flags.maxRecordBytes, RECORD_HEADER_BYTES, MAX_POSITION_BYTES);
      let invalid: DumpedRecord | DumpedIndexEntry | null = null;
      let invalidCount = 0;
      const checked: Checked = { records: 0, index: 0 };
      for (const base of baseOffsets) {
        for (const entry of dumpSegment(io, dir, base, { ...options, maxRecordBytes, onChecked: (type) => checked[type]++ })) {
          if ((entry.type === 'record' || entry.type === 'index') && entry.valid === false) {
            invalid ??= entry;
            invalidCount++;
          }
          process.stdout.write(`${flags.json ? JSON.stringify(entry) : formatText(entry)}\n`);
        }
      }
      if (options.verify) printSummary(baseOffsets.length, checked, invalidCount, Boolean(flags.json));
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
