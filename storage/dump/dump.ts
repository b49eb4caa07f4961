/**
 * Reading segment files for people (`loglab dump`, like kafka-dump-log.sh): every record with its
 * position, size, CRC and whether it is valid; index and time-index entries with absolute
 * offsets; and a verify pass that also checks each index entry lands on its record.
 *
 * A damaged record is reported with the bytes it spans, up to the next good record (found as the
 * reader finds it, resync.ts: where its length says when that holds, else by the next record's
 * id and CRC); the walk goes on from there. Only when no good record follows does it end. Zeros
 * from there to the end of the file — the preallocated space of an active segment that was not
 * closed — are reported as one `zeros` entry, not as damage: recovery cuts them. Likewise the
 * older records behind the end of a recycled segment file (log.ts, segment reuse; found as
 * recycled-tail.ts finds them) are one `recycled` entry: recovery cuts them, and only the frames
 * before them that carry the segment's next ids are reported as a damaged record (a torn write).
 *
 * Dumping a directory also checks the chain its segments form (dump-chain.ts), from the same
 * walk: what follows a sealed segment's last record is judged against the next segment, as the
 * log judges it when it opens, so only the last segment can have a `zeros` entry.
 *
 * The entries are dump-entries.ts's, the record walk dump-records.ts's, the index entries
 * dump-indexes.ts's.
 */
import * as path from 'node:path';
import type { FileIO } from '../io/file-io.js';
import { ReadWindow } from '../io/read-window.js';
import { LOG_SUFFIX, parseSegmentFileName, segmentFileName } from '../segments/segment-files.js';
import { RECORD_HEADER_BYTES, DEFAULT_MAX_RECORD_BYTES } from '../record/record.js';
import { soundRecordIdAt } from '../record/page-alignment.js';
import { StorageError } from '../errors.js';
import { readRecoveryPoint } from '../segments/recovery-point.js';
import { type NextSegment, chainProblemsAtEnd, nameMismatch } from './dump-chain.js';
import type {
  DumpedChainProblem,
  DumpEntry,
  DumpedIndexEntry,
  DumpedRecord,
  DumpedRecycled,
  DumpedZeros,
} from './dump-entries.js';
import { dumpRecords } from './dump-records.js';
import { dumpIndex, dumpTimeIndex } from './dump-indexes.js';

export interface DumpOptions {
  readonly records: boolean;
  readonly index: boolean;
  readonly timeIndex: boolean;
  /** Check each index entry against the log as well. */
  readonly verify: boolean;
  readonly maxRecordBytes?: number;
  /** Told about every record and index entry checked, printed or not. */
  readonly onChecked?: (type: 'records' | 'index') => void;
}

/** What to dump: segments of one directory, and whether they are all of its log's. */
export interface DumpTarget {
  readonly dir: string;
  readonly baseOffsets: readonly number[];
  /** A directory was named, so the chain between its segments is checked as well. */
  readonly wholeLog: boolean;
}

/** The segment base offsets to dump: every segment of a directory, or the one a file belongs to. */
export function segmentsToDump(io: FileIO, target: string): DumpTarget {
  const single = parseSegmentFileName(path.dirname(target), path.basename(target));
  if (single !== null) {
    if (!io.exists(target)) throw notFound(target);
    return { dir: path.dirname(target), baseOffsets: [single.baseOffset], wholeLog: false };
  }
  if (!io.exists(target)) throw notFound(target);
  const bases = new Set<number>();
  for (const name of io.list(target)) {
    const parsed = parseSegmentFileName(target, name);
    if (parsed !== null) bases.add(parsed.baseOffset);
  }
  return { dir: target, baseOffsets: [...bases].sort((a, b) => a - b), wholeLog: true };
}

function notFound(target: string): StorageError {
  return new StorageError(
    'INVALID_SEGMENT_FILE',
    `${target} is neither a log directory nor a segment file; check the path`,
    {
      file: target,
    },
  );
}

/** A segment to dump and where it really starts. */
interface SegmentStart {
  readonly baseOffset: number;
  readonly logName: string;
  readonly hasLog: boolean;
  /** Its first record's id when that record is sound; else its base offset. */
  readonly startOffset: number;
  readonly firstOffset: number | null;
}

/**
 * Every entry of the target's segments, in the order of the offsets they start at, with the
 * chain between neighbours (dump-chain.ts) when the target is a whole log and records are walked.
 */
export function* dumpLog(
  io: FileIO,
  target: DumpTarget,
  options: DumpOptions,
): Generator<DumpEntry> {
  const maxRecordBytes = options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
  const segments = target.baseOffsets
    .map((baseOffset) => segmentStart(io, target.dir, baseOffset, maxRecordBytes))
    .sort((a, b) => a.startOffset - b.startOffset || a.baseOffset - b.baseOffset);
  // A segment with only index files has no records to chain; the log's neighbours skip it too.
  const chained = segments.filter((segment) => segment.hasLog);
  const nextOf = new Map(chained.slice(1).map((after, slot) => [chained[slot]!, after]));
  const sealingBase = target.wholeLog ? sealingSegmentOf(io, target.dir) : null;
  for (const segment of segments) {
    const after = nextOf.get(segment);
    const afterSealing = segment.baseOffset === sealingBase;
    const next =
      target.wholeLog && after !== undefined
        ? { segment: after.logName, startOffset: after.startOffset, afterSealing }
        : null;
    yield* dumpSegment(io, target.dir, segment, next, { ...options, maxRecordBytes });
  }
}

/** The segment a sealing recovery point names (recovery-point.ts), read and never written. */
function sealingSegmentOf(io: FileIO, dir: string): number | null {
  const point = readRecoveryPoint(io, dir);
  return point !== null && !('unreadable' in point) && point.sealing === true
    ? point.segmentBaseOffset
    : null;
}

function segmentStart(
  io: FileIO,
  dir: string,
  baseOffset: number,
  maxRecordBytes: number,
): SegmentStart {
  const logName = segmentFileName(baseOffset, LOG_SUFFIX);
  const logPath = path.join(dir, logName);
  const hasLog = io.exists(logPath);
  const firstOffset = hasLog ? firstSoundRecordId(io, logPath, maxRecordBytes) : null;
  return { baseOffset, logName, hasLog, startOffset: firstOffset ?? baseOffset, firstOffset };
}

/** The first record's id when it is sound (soundRecordIdAt, page-alignment.ts). */
function firstSoundRecordId(io: FileIO, logPath: string, maxRecordBytes: number): number | null {
  const handle = io.openReadOnly(logPath);
  try {
    const window = new ReadWindow(io, RECORD_HEADER_BYTES);
    window.bind(handle);
    return soundRecordIdAt(window, 0, io.sizeBytes(handle), maxRecordBytes);
  } finally {
    io.close(handle);
  }
}

function* dumpSegment(
  io: FileIO,
  dir: string,
  segment: SegmentStart,
  next: NextSegment | null,
  options: DumpOptions & { readonly maxRecordBytes: number },
): Generator<DumpEntry> {
  const recordPositions = new Map<number, number>();
  if (segment.hasLog && (options.records || options.verify)) {
    const mismatch = nameMismatch(segment.logName, segment.baseOffset, segment.firstOffset);
    if (mismatch !== null) yield mismatch;
    const logPath = path.join(dir, segment.logName);
    const { startOffset } = segment;
    for (const entry of dumpRecordsAndEnd(io, logPath, startOffset, next, options.maxRecordBytes)) {
      if (entry.type === 'chain') {
        yield entry;
        continue;
      }
      if (entry.type === 'zeros' || entry.type === 'recycled') {
        if (options.records) yield entry;
        continue;
      }
      options.onChecked?.('records');
      if (entry.valid) recordPositions.set(entry.offset, entry.position);
      if (options.records || !entry.valid) yield entry;
    }
  }
  if (options.index || options.verify) {
    yield* checkedIndex(io, dir, segment, recordPositions, options);
  }
  if (options.timeIndex) yield* dumpTimeIndex(io, dir, segment.baseOffset, segment.startOffset);
}

/** Index entries, each checked against the record positions the walk found under `verify`. */
function* checkedIndex(
  io: FileIO,
  dir: string,
  segment: { readonly baseOffset: number; readonly startOffset: number },
  recordPositions: ReadonlyMap<number, number>,
  options: DumpOptions,
): Generator<DumpedIndexEntry> {
  for (const entry of dumpIndex(io, dir, segment.baseOffset, segment.startOffset)) {
    options.onChecked?.('index');
    if (!options.verify) yield entry;
    else {
      const landed = recordPositions.get(entry.offset) === entry.position;
      if (options.index || !landed) {
        yield landed
          ? { ...entry, valid: true }
          : { ...entry, valid: false, problem: 'does not land on its record' };
      }
    }
  }
}

/**
 * The segment's records, then what follows its last good record. For the last segment (or one
 * dumped alone) that is the damaged bytes and the zero tail, as found. For a sealed segment it is
 * judged against the next segment (dump-chain.ts): bytes after records that reached the next
 * segment are no record of this log, so they are reported as trailing bytes, not as a damaged
 * record holding an offset the next segment has.
 */
function* dumpRecordsAndEnd(
  io: FileIO,
  logPath: string,
  startOffset: number,
  next: NextSegment | null,
  maxRecordBytes: number,
): Generator<DumpedRecord | DumpedZeros | DumpedRecycled | DumpedChainProblem> {
  const walk = dumpRecords(io, logPath, startOffset, maxRecordBytes);
  let step = walk.next();
  for (; step.done !== true; step = walk.next()) yield step.value;
  const end = step.value;
  if (next === null && end.recycled !== null) {
    if (end.recycled.torn !== null) yield end.recycled.torn;
    yield end.recycled.older;
    return;
  }
  if (next === null) {
    if (end.damaged !== null) yield end.damaged;
    if (end.zeros !== null) yield end.zeros;
    return;
  }
  // Damage inside the offsets the segment should hold stays a damaged record, as elsewhere.
  if (end.damaged !== null && end.nextOffset < next.startOffset) yield end.damaged;
  yield* chainProblemsAtEnd(end, next);
}
