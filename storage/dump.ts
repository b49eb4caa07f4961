/**
 * Reading segment files for people (`loglab dump`, like kafka-dump-log.sh): every record with its
 * position, size, CRC and whether it is valid; index and time-index entries with absolute
 * offsets; and a verify pass that also checks each index entry lands on its record.
 *
 * A damaged record is reported with the bytes it spans, up to the next good record (found as the
 * reader finds it, resync.ts: where its length says when that holds, else by the next record's
 * id and CRC); the walk goes on from there. Only when no good record follows does it end. Zeros
 * from there to the end of the file — the preallocated space of an active segment that was not
 * closed — are reported as one `zeros` entry, not as damage: recovery cuts them.
 */
import * as path from 'node:path';
import type { FileIO } from './file-io.js';
import { ReadWindow } from './read-window.js';
import { INDEX_SUFFIX, LOG_SUFFIX, TIME_INDEX_SUFFIX, parseSegmentFileName, segmentFileName, SCAN_WINDOW_BYTES } from './segment.js';
import { RECORD_HEADER_BYTES, checkRecord, frameSizeAt, storedCrcAt, readU64, DEFAULT_MAX_RECORD_BYTES } from './record.js';
import { OFFSET_INDEX_ENTRY_BYTES } from './offset-index.js';
import { TIME_INDEX_ENTRY_BYTES } from './time-index.js';
import { StorageError } from './errors.js';
import { endOfNonZeroBytes, findRecordAfterDamage } from './resync.js';

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

/** The zero tail of a preallocated segment: no record starts in it. */
export interface DumpedZeros {
  readonly type: 'zeros';
  readonly segment: string;
  readonly position: number;
  readonly sizeBytes: number;
}

export type DumpEntry = DumpedRecord | DumpedIndexEntry | DumpedTimeIndexEntry | DumpedZeros;

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

/** The segment base offsets to dump: every segment of a directory, or the one a file belongs to. */
export function segmentsToDump(io: FileIO, target: string): { dir: string; baseOffsets: number[] } {
  const single = parseSegmentFileName(path.dirname(target), path.basename(target));
  if (single !== null) {
    if (!io.exists(target)) throw notFound(target);
    return { dir: path.dirname(target), baseOffsets: [single.baseOffset] };
  }
  if (!io.exists(target)) throw notFound(target);
  const bases = new Set<number>();
  for (const name of io.list(target)) {
    const parsed = parseSegmentFileName(target, name);
    if (parsed !== null) bases.add(parsed.baseOffset);
  }
  return { dir: target, baseOffsets: [...bases].sort((a, b) => a - b) };
}

function notFound(target: string): StorageError {
  return new StorageError('INVALID_SEGMENT_FILE', `${target} is neither a log directory nor a segment file; check the path`, {
    file: target,
  });
}

export function* dumpSegment(io: FileIO, dir: string, baseOffset: number, options: DumpOptions): Generator<DumpEntry> {
  const logPath = path.join(dir, segmentFileName(baseOffset, LOG_SUFFIX));
  const maxRecordBytes = options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
  const recordPositions = new Map<number, number>();
  if (io.exists(logPath) && (options.records || options.verify)) {
    for (const record of dumpRecords(io, logPath, baseOffset, maxRecordBytes)) {
      if (record.type === 'zeros') {
        if (options.records) yield record;
        continue;
      }
      options.onChecked?.('records');
      if (record.valid) recordPositions.set(record.offset, record.position);
      if (options.records || !record.valid) yield record;
    }
  }
  if (options.index || options.verify) {
    for (const entry of dumpIndex(io, dir, baseOffset)) {
      options.onChecked?.('index');
      if (!options.verify) yield entry;
      else {
        const landed = recordPositions.get(entry.offset) === entry.position;
        if (options.index || !landed) {
          yield landed ? { ...entry, valid: true } : { ...entry, valid: false, problem: 'does not land on its record' };
        }
      }
    }
  }
  if (options.timeIndex) yield* dumpTimeIndex(io, dir, baseOffset);
}

function* dumpRecords(io: FileIO, logPath: string, baseOffset: number, maxRecordBytes: number): Generator<DumpedRecord | DumpedZeros> {
  const handle = io.openReadOnly(logPath);
  const segment = path.basename(logPath);
  try {
    const sizeBytes = io.sizeBytes(handle);
    const window = new ReadWindow(io, SCAN_WINDOW_BYTES);
    window.bind(handle);
    let expected = baseOffset;
    let dataEnd: number | null = null;
    for (let position = 0; position < sizeBytes; ) {
      const frame = checkFrame(window, sizeBytes, position, expected, maxRecordBytes);
      if (frame.problem === null) {
        yield { type: 'record', segment, offset: expected, position, sizeBytes: frame.sizeBytes, crc: frame.crc, valid: true };
        position += frame.sizeBytes;
        expected++;
        continue;
      }
      dataEnd ??= endOfNonZeroBytes(window, position, sizeBytes);
      const zeros: DumpedZeros = { type: 'zeros', segment, position: dataEnd, sizeBytes: sizeBytes - dataEnd };
      if (position >= dataEnd) {
        yield zeros;
        return;
      }
      const resume = findRecordAfterDamage(window, sizeBytes, position, expected, maxRecordBytes, dataEnd);
      const spanBytes = (resume?.positionBytes ?? dataEnd) - position;
      const records = resume === null ? 1 : resume.offset - expected;
      const problem = records > 1 ? `${frame.problem}; ${records} records in these bytes` : frame.problem;
      yield { type: 'record', segment, offset: expected, position, sizeBytes: spanBytes, crc: frame.crc, valid: false, problem };
      if (resume === null) {
        if (zeros.sizeBytes > 0) yield zeros;
        return;
      }
      position = resume.positionBytes;
      expected = resume.offset;
    }
  } finally {
    io.close(handle);
  }
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

function* dumpIndex(io: FileIO, dir: string, baseOffset: number): Generator<DumpedIndexEntry> {
  const name = segmentFileName(baseOffset, INDEX_SUFFIX);
  const bytes = io.readWholeFile(path.join(dir, name));
  if (bytes === null) return;
  for (let at = 0; at + OFFSET_INDEX_ENTRY_BYTES <= bytes.length; at += OFFSET_INDEX_ENTRY_BYTES) {
    yield { type: 'index', segment: name, offset: baseOffset + bytes.readUInt32BE(at), position: bytes.readUInt32BE(at + 4) };
  }
}

function* dumpTimeIndex(io: FileIO, dir: string, baseOffset: number): Generator<DumpedTimeIndexEntry> {
  const name = segmentFileName(baseOffset, TIME_INDEX_SUFFIX);
  const bytes = io.readWholeFile(path.join(dir, name));
  if (bytes === null) return;
  for (let at = 0; at + TIME_INDEX_ENTRY_BYTES <= bytes.length; at += TIME_INDEX_ENTRY_BYTES) {
    yield { type: 'timeindex', segment: name, timestampMs: readU64(bytes, at), offset: baseOffset + bytes.readUInt32BE(at + 8) };
  }
}
