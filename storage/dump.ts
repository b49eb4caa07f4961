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
 */
import * as path from 'node:path';
import type { FileIO } from './file-io.js';
import { ReadWindow } from './read-window.js';
import {
  INDEX_SUFFIX,
  LOG_SUFFIX,
  TIME_INDEX_SUFFIX,
  parseSegmentFileName,
  segmentFileName,
  SCAN_WINDOW_BYTES,
} from './segment.js';
import {
  RECORD_HEADER_BYTES,
  checkRecord,
  frameSizeAt,
  recordIdAt,
  storedCrcAt,
  readU64,
  DEFAULT_MAX_RECORD_BYTES,
} from './record.js';
import { OFFSET_INDEX_ENTRY_BYTES } from './offset-index.js';
import { TIME_INDEX_ENTRY_BYTES } from './time-index.js';
import { StorageError } from './errors.js';
import { endOfNonZeroBytes, findRecordAfterDamage } from './resync.js';
import { findRecycledTail } from './recycled-tail.js';
import { startsLikeRecord } from './segment-chain.js';
import { readRecoveryPoint } from './recovery-point.js';
import {
  type DumpedChainProblem,
  type NextSegment,
  type SegmentEnd,
  chainProblemsAtEnd,
  nameMismatch,
} from './dump-chain.js';

export type { DumpedChainProblem } from './dump-chain.js';

export interface DumpedRecord {
  readonly type: 'record';
  readonly segment: string;
  readonly offset: number;
  readonly position: number;
  readonly sizeBytes: number;
  readonly crc: string;
  readonly valid: boolean;
  readonly problem?: string;
}

export interface DumpedIndexEntry {
  readonly type: 'index';
  readonly segment: string;
  readonly offset: number;
  readonly position: number;
  readonly valid?: boolean;
  readonly problem?: string;
}

export interface DumpedTimeIndexEntry {
  readonly type: 'timeindex';
  readonly segment: string;
  readonly timestampMs: number;
  readonly offset: number;
}

/** The zero tail of a preallocated (last) segment: no record starts in it. */
export interface DumpedZeros {
  readonly type: 'zeros';
  readonly segment: string;
  readonly position: number;
  readonly sizeBytes: number;
}

/**
 * Behind the last record of a recycled (last) segment file: an older segment's records, every id
 * below this segment's, and anything after them to the end of the file. Not damage: recovery
 * cuts them, and no read reaches them.
 */
export interface DumpedRecycled {
  readonly type: 'recycled';
  readonly segment: string;
  readonly position: number;
  readonly sizeBytes: number;
  /** Where the first whole older record starts (what comes before it is part of one). */
  readonly olderRecordPosition: number;
}

export type DumpEntry =
  | DumpedRecord
  | DumpedIndexEntry
  | DumpedTimeIndexEntry
  | DumpedZeros
  | DumpedRecycled
  | DumpedChainProblem;

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

/** As Segment.soundRecordIdAt(0): the first record's id when it is sound, whatever id it holds. */
function firstSoundRecordId(io: FileIO, logPath: string, maxRecordBytes: number): number | null {
  const handle = io.openReadOnly(logPath);
  try {
    const sizeBytes = io.sizeBytes(handle);
    const window = new ReadWindow(io, RECORD_HEADER_BYTES);
    window.bind(handle);
    const at = window.ensure(0, RECORD_HEADER_BYTES, sizeBytes);
    if (at < 0) return null;
    const size = frameSizeAt(window.buffer, at, maxRecordBytes);
    if (typeof size === 'string') return null;
    const whole = window.ensure(0, size, sizeBytes);
    if (whole < 0 || checkRecord(window.buffer, whole, size) !== null) return null;
    return recordIdAt(window.buffer, whole);
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

/** Where a segment's walk ended: the chain's view (SegmentEnd) and the entries for the tail. */
interface RecordsEnd extends SegmentEnd {
  /** Bytes after the last good record that are not zeros and that no good record follows. */
  readonly damaged: DumpedRecord | null;
  readonly zeros: DumpedZeros | null;
  /**
   * The same bytes when an older segment's records follow the last good one (a recycled file):
   * the frames of this segment's next ids before them (torn), then the older records. Used for
   * the last segment only: a sealed one is trimmed to its records when it is sealed.
   */
  readonly recycled: { readonly torn: DumpedRecord | null; readonly older: DumpedRecycled } | null;
}

/**
 * Every good record, and every damaged one a good record follows; returns the rest. The walk
 * follows Segment.scan with skipDamaged, as the log's chain check does: where it ends and the
 * offset after its last good record are the ones the log finds.
 */
function* dumpRecords(
  io: FileIO,
  logPath: string,
  startOffset: number,
  maxRecordBytes: number,
): Generator<DumpedRecord, RecordsEnd> {
  const handle = io.openReadOnly(logPath);
  const segment = path.basename(logPath);
  try {
    const sizeBytes = io.sizeBytes(handle);
    const window = new ReadWindow(io, SCAN_WINDOW_BYTES);
    window.bind(handle);
    let expected = startOffset;
    let dataEnd: number | null = null;
    let position = 0;
    while (position < sizeBytes) {
      const frame = checkFrame(window, sizeBytes, position, expected, maxRecordBytes);
      if (frame.problem === null) {
        yield {
          type: 'record',
          segment,
          offset: expected,
          position,
          sizeBytes: frame.sizeBytes,
          crc: frame.crc,
          valid: true,
        };
        position += frame.sizeBytes;
        expected++;
        continue;
      }
      dataEnd ??= endOfNonZeroBytes(window, position, sizeBytes);
      const resume =
        position >= dataEnd
          ? null
          : findRecordAfterDamage(window, sizeBytes, position, expected, maxRecordBytes, dataEnd);
      if (resume === null) {
        const at = window.ensure(position, RECORD_HEADER_BYTES, sizeBytes);
        const likeRecord = at >= 0 && startsLikeRecord(window.buffer, at, maxRecordBytes, expected);
        const damage = { crc: frame.crc, problem: frame.problem, likeRecord };
        const end = tailOf(segment, sizeBytes, position, expected, dataEnd, damage);
        const recycled = recycledTailOf(
          window,
          segment,
          sizeBytes,
          position,
          expected,
          startOffset,
          maxRecordBytes,
          damage,
        );
        return { ...end, recycled };
      }
      const records = resume.offset - expected;
      const problem =
        records > 1 ? `${frame.problem}; ${records} records in these bytes` : frame.problem;
      const spanBytes = resume.positionBytes - position;
      yield {
        type: 'record',
        segment,
        offset: expected,
        position,
        sizeBytes: spanBytes,
        crc: frame.crc,
        valid: false,
        problem,
      };
      position = resume.positionBytes;
      expected = resume.offset;
    }
    return { ...tailOf(segment, sizeBytes, position, expected, sizeBytes, null), recycled: null };
  } finally {
    io.close(handle);
  }
}

/** The tail as RecordsEnd.recycled, when an older segment's records follow (recycled-tail.ts). */
function recycledTailOf(
  window: ReadWindow,
  segment: string,
  sizeBytes: number,
  position: number,
  nextOffset: number,
  startOffset: number,
  maxRecordBytes: number,
  frame: { readonly crc: string; readonly problem: string },
): RecordsEnd['recycled'] {
  const found = findRecycledTail(
    window,
    sizeBytes,
    position,
    nextOffset,
    startOffset,
    maxRecordBytes,
  );
  if (found === null) return null;
  const { tornEndBytes, olderRecordBytes } = found;
  const torn: DumpedRecord | null =
    tornEndBytes === position
      ? null
      : {
          type: 'record',
          segment,
          offset: nextOffset,
          position,
          sizeBytes: tornEndBytes - position,
          crc: frame.crc,
          valid: false,
          problem: frame.problem,
        };
  const older: DumpedRecycled = {
    type: 'recycled',
    segment,
    position: tornEndBytes,
    sizeBytes: sizeBytes - tornEndBytes,
    olderRecordPosition: olderRecordBytes,
  };
  return { torn, older };
}

/**
 * The bytes from `position` (after the last good record) to the end of the file: damaged bytes
 * up to `dataEnd`, the end of the non-zero bytes, then zeros.
 */
function tailOf(
  segment: string,
  sizeBytes: number,
  position: number,
  nextOffset: number,
  dataEnd: number,
  frame: { readonly crc: string; readonly problem: string; readonly likeRecord: boolean } | null,
): Omit<RecordsEnd, 'recycled'> {
  // A good record may end in zeros, so the zero tail starts after it, not inside it.
  const zerosFrom = Math.max(dataEnd, position);
  const zeros: DumpedZeros | null =
    zerosFrom < sizeBytes
      ? { type: 'zeros', segment, position: zerosFrom, sizeBytes: sizeBytes - zerosFrom }
      : null;
  const damaged: DumpedRecord | null =
    frame === null || dataEnd <= position
      ? null
      : {
          type: 'record',
          segment,
          offset: nextOffset,
          position,
          sizeBytes: dataEnd - position,
          crc: frame.crc,
          valid: false,
          problem: frame.problem,
        };
  const end = { segment, nextOffset, endPositionBytes: position, sizeBytes };
  const damagedBytes = Math.max(0, dataEnd - position);
  const startsLikeRecord = frame?.likeRecord ?? false;
  return { ...end, zerosAfter: damaged === null, damagedBytes, startsLikeRecord, damaged, zeros };
}

/** The record at `position` checked whole: its size, stored CRC and problem (null when good). */
function checkFrame(
  window: ReadWindow,
  fileSizeBytes: number,
  position: number,
  expectedOffset: number,
  maxRecordBytes: number,
): { sizeBytes: number; crc: string; problem: string | null } {
  const at = window.ensure(position, RECORD_HEADER_BYTES, fileSizeBytes);
  const size = at < 0 ? 'truncated' : frameSizeAt(window.buffer, at, maxRecordBytes);
  if (typeof size === 'string') return { sizeBytes: 0, crc: '-', problem: size };
  const whole = window.ensure(position, size, fileSizeBytes);
  if (whole < 0) return { sizeBytes: size, crc: '-', problem: 'truncated' };
  const crc = `0x${storedCrcAt(window.buffer, whole).toString(16).padStart(8, '0')}`;
  return { sizeBytes: size, crc, problem: checkRecord(window.buffer, whole, size, expectedOffset) };
}

/** `startOffset`: what the entries' relative offsets count from (a renamed file's first offset). */
function* dumpIndex(
  io: FileIO,
  dir: string,
  baseOffset: number,
  startOffset: number,
): Generator<DumpedIndexEntry> {
  const name = segmentFileName(baseOffset, INDEX_SUFFIX);
  const bytes = io.readWholeFile(path.join(dir, name));
  if (bytes === null) return;
  for (let at = 0; at + OFFSET_INDEX_ENTRY_BYTES <= bytes.length; at += OFFSET_INDEX_ENTRY_BYTES) {
    const offset = startOffset + bytes.readUInt32BE(at);
    yield { type: 'index', segment: name, offset, position: bytes.readUInt32BE(at + 4) };
  }
}

function* dumpTimeIndex(
  io: FileIO,
  dir: string,
  baseOffset: number,
  startOffset: number,
): Generator<DumpedTimeIndexEntry> {
  const name = segmentFileName(baseOffset, TIME_INDEX_SUFFIX);
  const bytes = io.readWholeFile(path.join(dir, name));
  if (bytes === null) return;
  for (let at = 0; at + TIME_INDEX_ENTRY_BYTES <= bytes.length; at += TIME_INDEX_ENTRY_BYTES) {
    const offset = startOffset + bytes.readUInt32BE(at + 8);
    yield { type: 'timeindex', segment: name, timestampMs: readU64(bytes, at), offset };
  }
}
