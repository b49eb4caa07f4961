/**
 * `loglab dump DIR_OR_FILE`: segment files for people, like kafka-dump-log.sh. It reads the files
 * as they are, never opens the log, and so never creates, recovers or changes anything. A Kafka
 * partition directory or segment (storage/dump/segment-format.ts tells them apart) is printed as
 * Kafka's own tool prints it (storage/dump/kafka-dump.ts).
 */
import * as path from 'node:path';
import type { Command } from 'commander';
import { NodeFileIO } from '../../storage/io/node-file-io.js';
import { dumpLog, segmentsToDump, type DumpTarget } from '../../storage/dump/dump.js';
import type {
  DumpEntry,
  DumpedChainProblem,
  DumpedIndexEntry,
  DumpedRecord,
} from '../../storage/dump/dump-entries.js';
import { chainProblemAdvice, describeChainProblem } from '../../storage/dump/dump-chain.js';
import { DEFAULT_MAX_RECORD_BYTES, RECORD_HEADER_BYTES } from '../../storage/record/record.js';
import { readRecordLimit } from '../../storage/log/record-limit.js';
import { MAX_POSITION_BYTES } from '../../storage/units.js';
import { StorageError } from '../../storage/errors.js';
import { detectSegmentFormat } from '../../storage/dump/segment-format.js';
import { type KafkaDumpOptions, dumpKafkaSegments } from '../../storage/dump/kafka-dump.js';
import {
  type KafkaCheckedKind,
  type KafkaDumpEntry,
  formatKafkaEntry,
  isKafkaProblem,
} from '../../storage/dump/kafka-dump-entries.js';
import {
  INDEX_SUFFIX,
  LOG_SUFFIX,
  TIME_INDEX_SUFFIX,
} from '../../storage/segments/segment-files.js';
import { parseByteSize } from '../arguments.js';
import { LabError, badArgument } from '../../lab/errors.js';

interface DumpFlags {
  records?: boolean;
  index?: boolean;
  timeindex?: boolean;
  verify?: boolean;
  json?: boolean;
  maxRecordBytes?: string;
  printDataLog?: boolean;
  deepIteration?: boolean;
}

function formatText(entry: DumpEntry): string {
  switch (entry.type) {
    case 'record': {
      const problem = entry.valid ? '' : ` problem: ${entry.problem}`;
      return `${entry.segment} offset: ${entry.offset} position: ${entry.position} size: ${entry.sizeBytes} crc: ${entry.crc} valid: ${entry.valid}${problem}`;
    }
    case 'index': {
      const validity =
        entry.valid === undefined
          ? ''
          : ` valid: ${entry.valid}${entry.problem ? ` problem: ${entry.problem}` : ''}`;
      return `${entry.segment} offset: ${entry.offset} position: ${entry.position}${validity}`;
    }
    case 'timeindex':
      return `${entry.segment} timestamp: ${entry.timestampMs} offset: ${entry.offset}`;
    case 'zeros':
      return (
        `${entry.segment} zeros: ${entry.sizeBytes} bytes from position ${entry.position} ` +
        '(preallocated space after the last record; opening the log cuts it)'
      );
    case 'recycled':
      return (
        `${entry.segment} recycled: ${entry.sizeBytes} bytes from position ${entry.position} ` +
        "(an older segment's records, left in the recycled file after the last record; opening " +
        'the log cuts them)'
      );
    case 'chain':
      return `${entry.segment} chain: ${entry.problem}: ${describeChainProblem(entry)}`;
  }
}

const NOT_A_SEGMENT =
  "it is a file whose name is not a segment's " +
  '(<20-digit base offset>.log, .index or .timeindex)';

/** The segments `target` names; a path with none is refused (exit 2), never dumped as empty. */
function segmentsOf(io: NodeFileIO, target: string): DumpTarget {
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

/** What `--verify` found: counts, and the first problem, which the final error names. */
interface Verdict {
  invalid: number;
  chainProblems: number;
  first: Problem | null;
}

type Problem = DumpedRecord | DumpedIndexEntry | DumpedChainProblem;

/** An invalid record or index entry, or any chain entry: the chain is only reported when broken. */
function isProblem(entry: DumpEntry): entry is Problem {
  if (entry.type === 'chain') return true;
  return (entry.type === 'record' || entry.type === 'index') && entry.valid === false;
}

function judge(verdict: Verdict, entry: DumpEntry): void {
  if (!isProblem(entry)) return;
  if (entry.type === 'chain') verdict.chainProblems++;
  else verdict.invalid++;
  verdict.first ??= entry;
}

/** `--verify`'s tally: one JSON line on stdout with `--json`, else a line of text on stderr. */
function printSummary(segments: number, checked: Checked, verdict: Verdict, json: boolean): void {
  const { records, index: indexEntries } = checked;
  const { invalid, chainProblems } = verdict;
  if (json) {
    const summary = { type: 'summary', segments, records, indexEntries, invalid, chainProblems };
    process.stdout.write(`${JSON.stringify(summary)}\n`);
    return;
  }
  process.stderr.write(
    `verified ${segments} segment(s): ${records} records, ` +
      `${indexEntries} index entries, ${invalid} invalid, ${chainProblems} chain problem(s)\n`,
  );
}

/** CHECK_FAILED naming the first problem and what to do about it. */
function verifyFailed(verdict: Verdict, dir: string, maxRecordBytes: number): LabError | null {
  const { first, invalid, chainProblems } = verdict;
  if (first === null) return null;
  const found = [
    invalid > 0 ? `${invalid} invalid entr${invalid === 1 ? 'y' : 'ies'}` : null,
    chainProblems > 0 ? `${chainProblems} chain problem${chainProblems === 1 ? '' : 's'}` : null,
  ]
    .filter((part) => part !== null)
    .join(' and ');
  if (first.type === 'chain') {
    return new LabError(
      'CHECK_FAILED',
      `verify found ${found}; the first in ${first.segment}: ` +
        `${first.problem}: ${describeChainProblem(first)}. ${chainProblemAdvice(first, dir)}`,
    );
  }
  const hint =
    first.problem === 'length above maximum'
      ? `; if the log takes records over ${maxRecordBytes} bytes, ` +
        'pass its limit with --max-record-bytes'
      : '';
  return new LabError(
    'CHECK_FAILED',
    `verify found ${found}; the first in ${first.segment} at ` +
      `position ${first.position} (${first.problem})${hint}`,
  );
}

/** What a Kafka dump prints: the named file's kind by default, and what the flags add. */
function kafkaOptions(target: DumpTarget, named: string, flags: DumpFlags): KafkaDumpOptions {
  const kind = target.wholeLog ? null : path.extname(named);
  const records = Boolean(flags.records || flags.deepIteration || flags.printDataLog);
  const nothingAsked = !records && !flags.index && !flags.timeindex && !flags.verify;
  return {
    batches: records || (nothingAsked && (kind === null || kind === LOG_SUFFIX)),
    records,
    payloads: Boolean(flags.printDataLog),
    index: Boolean(flags.index) || (nothingAsked && kind === INDEX_SUFFIX),
    timeIndex: Boolean(flags.timeindex) || (nothingAsked && kind === TIME_INDEX_SUFFIX),
    verify: Boolean(flags.verify),
  };
}

/** What to do about the first problem `--verify` found in a Kafka segment. */
function kafkaAdvice(first: KafkaDumpEntry): string {
  switch (first.type) {
    case 'index':
    case 'timeindex':
      return (
        "the index is a cache: move the segment's .index and .timeindex away and Kafka " +
        'rebuilds them when it next loads the partition'
      );
    case 'tail':
      return (
        "a torn or partial write: Kafka's recovery cuts the active segment there; in a " +
        'sealed segment, restore the segment from a replica'
      );
    default:
      return (
        "restore the segment from a replica; Kafka's recovery truncates the active " +
        'segment at its first bad batch, and drops every batch after it'
      );
  }
}

function describeKafkaProblem(first: KafkaDumpEntry): string {
  switch (first.type) {
    case 'batch':
      return (
        `${first.file} at position ${first.position} (batch ${first.baseOffset}..` +
        `${first.lastOffset}): ${first.problem ?? 'crc does not match'}`
      );
    case 'tail':
      return (
        `${first.file} at position ${first.position} (${first.sizeBytes} bytes after the ` +
        `last whole batch): ${first.problem}`
      );
    case 'index':
      return (
        `${first.file}, entry offset ${first.offset} position ${first.position}: ` +
        `${first.problem ?? ''}`
      );
    case 'timeindex':
      return (
        `${first.file}, entry timestamp ${first.timestampMs} offset ${first.offset}: ` +
        `${first.problem ?? ''}`
      );
    default:
      return first.file;
  }
}

/** `dump` of a Kafka partition directory or segment file (storage/dump/kafka-dump.ts). */
function dumpKafka(io: NodeFileIO, target: DumpTarget, named: string, flags: DumpFlags): void {
  const counts: Record<KafkaCheckedKind, number> = { batch: 0, record: 0, index: 0, timeindex: 0 };
  const options = {
    ...kafkaOptions(target, named, flags),
    onChecked: (kind: KafkaCheckedKind, count: number) => {
      counts[kind] += count;
    },
  };
  let problems = 0;
  let first: KafkaDumpEntry | null = null;
  for (const entry of dumpKafkaSegments(io, target, options)) {
    if (isKafkaProblem(entry)) {
      problems++;
      first ??= entry;
    }
    const line = flags.json ? JSON.stringify(entry) : formatKafkaEntry(entry, target.dir);
    process.stdout.write(`${line}\n`);
  }
  if (!options.verify) return;
  const segments = target.baseOffsets.length;
  if (flags.json) {
    const summary = {
      type: 'summary',
      segments,
      batches: counts.batch,
      records: counts.record,
      indexEntries: counts.index,
      timeIndexEntries: counts.timeindex,
      invalid: problems,
    };
    process.stdout.write(`${JSON.stringify(summary)}\n`);
  } else {
    process.stderr.write(
      `verified ${segments} segment(s): ${counts.batch} batches, ` +
        `${counts.record} records, ${counts.index} index entries, ${counts.timeindex} time index ` +
        `entries, ${problems} invalid\n`,
    );
  }
  if (first === null) return;
  throw new LabError(
    'CHECK_FAILED',
    `verify found ${problems} problem(s) in the Kafka ` +
      `segments; the first in ${describeKafkaProblem(first)}. ${kafkaAdvice(first)}`,
  );
}

export function registerDumpCommand(program: Command): void {
  program
    .command('dump')
    .description(
      'print records, index and time-index entries of a log directory or one segment ' +
        "file (loglab's or Kafka's)",
    )
    .argument('<dir-or-file>', 'log directory, or a .log/.index/.timeindex file')
    .option('--records', 'print every record (the default when nothing else is asked for)')
    .option('--index', 'print offset index entries')
    .option('--timeindex', 'print time index entries')
    .option(
      '--verify',
      'check every record, index entry and the chain of segments; ' +
        'exit 1 when anything is invalid',
    )
    .option('--json', 'one JSON object per line')
    .option(
      '--print-data-log',
      "Kafka segments: each record's line with its key and payload " +
        '(as kafka-dump-log.sh --print-data-log)',
    )
    .option('--deep-iteration', "Kafka segments: each record's line, without key and payload")
    .option(
      '--max-record-bytes <size>',
      'the record size limit to check against (default: the one stored with the log, else 1MiB)',
    )
    .action((target: string, flags: DumpFlags) => {
      const io = new NodeFileIO();
      const nothingAsked = !flags.records && !flags.index && !flags.timeindex && !flags.verify;
      const options = {
        records: Boolean(flags.records) || nothingAsked,
        index: Boolean(flags.index),
        timeIndex: Boolean(flags.timeindex),
        verify: Boolean(flags.verify),
      };
      const found = segmentsOf(io, target);
      if (detectSegmentFormat(io, found.dir, found.wholeLog ? null : target) === 'kafka') {
        dumpKafka(io, found, target, flags);
        return;
      }
      const maxRecordBytes =
        flags.maxRecordBytes === undefined
          ? (readRecordLimit(io, found.dir) ?? DEFAULT_MAX_RECORD_BYTES)
          : parseByteSize(
              '--max-record-bytes',
              flags.maxRecordBytes,
              RECORD_HEADER_BYTES,
              MAX_POSITION_BYTES,
            );
      const verdict: Verdict = { invalid: 0, chainProblems: 0, first: null };
      const checked: Checked = { records: 0, index: 0 };
      const onChecked = (type: keyof Checked): void => {
        checked[type]++;
      };
      for (const entry of dumpLog(io, found, { ...options, maxRecordBytes, onChecked })) {
        judge(verdict, entry);
        process.stdout.write(`${flags.json ? JSON.stringify(entry) : formatText(entry)}\n`);
      }
      if (!options.verify) return;
      printSummary(found.baseOffsets.length, checked, verdict, Boolean(flags.json));
      const failed = verifyFailed(verdict, found.dir, maxRecordBytes);
      if (failed !== null) throw failed;
    });
}
