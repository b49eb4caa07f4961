/**
 * The chain a log's segments must form, checked at every open: each segment's first record
 * carries the offset its file name says, and each sealed segment's records end exactly where the
 * next segment begins. Every sealed segment was fdatasynced before the next one was created
 * (log.ts, the roll), so no crash can break the chain: a break means a file was removed,
 * renamed, cut or written to from outside. The log then refuses to open (LOG_GAP,
 * SEGMENT_NAME_MISMATCH, SEGMENT_OVERLAP) rather than repair it by deleting data, and says how
 * to proceed. Bytes after a sealed segment's last record are reported and left alone: readers
 * stop at the last record and go on to the next segment.
 *
 * The check is cheap: a segment's first record, then a walk from its index's last entry (read
 * alone, 8 bytes) to the end of the file, about one index interval.
 */
import * as path from 'node:path';
import { StorageError } from '../errors.js';
import { type ReadWindow, endOfNonZeroBytes } from '../io/read-window.js';
import { RECORD_HEADER_BYTES, frameSizeAt, recordIdAt } from '../record/record.js';
import { OffsetIndex } from '../segments/offset-index.js';
import { LOG_SUFFIX, segmentFileName } from '../segments/segment-files.js';
import type { ChainFinding } from './recovery-report.js';
import type { ScannedSegment } from './segment-scan.js';

/** Refuses a segment whose first record is sound but carries another offset than its name. */
export function checkSegmentName(segment: ScannedSegment, window: ReadWindow): void {
  const firstId = segment.soundRecordIdAt(window, 0);
  if (firstId === null || firstId === segment.baseOffset) return;
  const file = segment.logPath;
  throw new StorageError(
    'SEGMENT_NAME_MISMATCH',
    `${file} is named for offset ${segment.baseOffset} but its first record is offset ${firstId}: ` +
      'the file was renamed or copied from another log. Rename it (with its .index and .timeindex) ' +
      `to ${segmentFileName(firstId, LOG_SUFFIX)} if it belongs to this log, else move it out of ` +
      `${segment.dir}; the log refuses to open rather than cut records it cannot place`,
    { file, offset: BigInt(segment.baseOffset), fromOffset: firstId },
  );
}

/**
 * Checks that sealed `segment` ends where `next` begins. Throws LOG_GAP or SEGMENT_OVERLAP for
 * a broken chain; returns what else it found (bytes after the last record, a damaged end), and
 * limits the segment's data to its records when bytes follow them. Returns the bytes walked.
 */
export function checkSealedEnd(
  segment: ScannedSegment,
  next: ScannedSegment,
  window: ReadWindow,
  findings: ChainFinding[],
): number {
  const start = walkStartOf(segment, window);
  let overlapAt: number | null = null;
  const stopAt = (offset: number, positionBytes: number): boolean => {
    if (offset < next.baseOffset) return false;
    overlapAt = positionBytes;
    return true;
  };
  const walk = segment.scan(window, start.positionBytes, start.offset, {
    reindex: false,
    skipDamaged: true,
    stopAt,
  });
  const walkedBytes = walk.endPositionBytes - start.positionBytes;
  if (overlapAt !== null || walk.nextOffset > next.baseOffset) throw overlap(segment, next);
  const missing = next.baseOffset - walk.nextOffset;
  if (missing > 0 && !couldHold(segment, window, walk.endPositionBytes, walk.nextOffset, missing)) {
    throw gap(segment, next, walk.nextOffset);
  }
  const finding =
    walk.nextOffset < next.baseOffset
      ? damagedEnd(segment, next, walk.endPositionBytes, walk.nextOffset)
      : trailing(segment, window, walk.endPositionBytes, next);
  if (finding !== null) findings.push(finding);
  if (finding !== null && finding.kind !== 'damaged-end') segment.endDataAt(walk.endPositionBytes);
  return walkedBytes;
}

/**
 * Whether the bytes after a sealed segment's last good record could be its `missing` records,
 * damaged: they start like the next record (a plausible length, or the id expected there — one
 * of the two survives most damage; random bytes pass with odds of about 1 in 4,000), and hold
 * enough non-zero bytes for the records (zeros never are one: a record opens with its non-zero
 * length; each takes at least RECORD_HEADER_BYTES). If not, the records are simply not there:
 * a gap, which bytes written after the segment must not hide.
 */
function couldHold(
  segment: ScannedSegment,
  window: ReadWindow,
  fromBytes: number,
  nextOffset: number,
  missing: number,
): boolean {
  window.bind(segment.handle);
  const dataEnd = endOfNonZeroBytes(window, fromBytes, segment.sizeBytes);
  const at = window.ensure(fromBytes, RECORD_HEADER_BYTES, segment.sizeBytes);
  const likeRecord =
    at >= 0 && startsLikeRecord(window.buffer, at, segment.maxRecordBytes, nextOffset);
  return couldBeDamagedRecords(likeRecord, dataEnd - fromBytes, missing);
}

/** The rule of couldHold on what a walk found: `dump` applies it to its own walk of the files. */
export function couldBeDamagedRecords(
  startsLikeARecord: boolean,
  nonZeroBytes: number,
  missing: number,
): boolean {
  return startsLikeARecord && nonZeroBytes >= missing * RECORD_HEADER_BYTES;
}

/** A plausible length, or the id expected there: what is left of a damaged record's header. */
export function startsLikeRecord(
  buffer: Buffer,
  at: number,
  maxRecordBytes: number,
  expectedOffset: number,
): boolean {
  return (
    typeof frameSizeAt(buffer, at, maxRecordBytes) === 'number' ||
    recordIdAt(buffer, at) === expectedOffset
  );
}

/** The index's last entry when it lands on its record; else the segment's start. */
function walkStartOf(
  segment: ScannedSegment,
  window: ReadWindow,
): { positionBytes: number; offset: number } {
  // The last entry read alone (8 bytes): checking the chain loads no index.
  const entry = OffsetIndex.lastEntryOnDisk(segment.io, segment.indexPath, segment.sizeBytes);
  if (entry !== null) {
    const offset = segment.baseOffset + entry.relativeOffset;
    if (segment.soundRecordIdAt(window, entry.positionBytes) === offset) {
      return { positionBytes: entry.positionBytes, offset };
    }
  }
  return { positionBytes: 0, offset: segment.baseOffset };
}

/** Bytes after a sealed segment's last record, as a finding; null when there are none. */
export function trailing(
  segment: ScannedSegment,
  window: ReadWindow,
  dataEndBytes: number,
  next: ScannedSegment,
): ChainFinding | null {
  const extraBytes = segment.sizeBytes - dataEndBytes;
  if (extraBytes === 0) return null;
  window.bind(segment.handle);
  const zeros = endOfNonZeroBytes(window, dataEndBytes, segment.sizeBytes) === dataEndBytes;
  const what = zeros ? `${extraBytes} zero bytes` : `${extraBytes} bytes that are not records`;
  return {
    segment: segment.logPath,
    kind: zeros ? 'trailing-zeros' : 'trailing-bytes',
    positionBytes: dataEndBytes,
    sizeBytes: extraBytes,
    message:
      `${path.basename(segment.logPath)}: ${what} after its last record (offset ` +
      `${next.baseOffset - 1}, ending at position ${dataEndBytes}); left in place and never read ` +
      '(the next segment holds the next offset)',
  };
}

function damagedEnd(
  segment: ScannedSegment,
  next: ScannedSegment,
  positionBytes: number,
  fromOffset: number,
): ChainFinding {
  return {
    segment: segment.logPath,
    kind: 'damaged-end',
    positionBytes,
    sizeBytes: segment.sizeBytes - positionBytes,
    message:
      `${path.basename(segment.logPath)}: offsets ${fromOffset} to ${next.baseOffset - 1} are damaged ` +
      `(from position ${positionBytes}); reads of them report CORRUPT_RECORD, later offsets read as usual`,
  };
}

/** LOG_GAP: `segment` ends whole at `fromOffset` - 1, and `next` starts later. */
export function gap(
  segment: ScannedSegment,
  next: ScannedSegment,
  fromOffset: number,
): StorageError {
  const toOffset = next.baseOffset - 1;
  return new StorageError(
    'LOG_GAP',
    `the log in ${segment.dir} has no records for offsets ${fromOffset} to ${toOffset}: ` +
      `${path.basename(segment.logPath)} ends whole at offset ${fromOffset - 1} and the next segment, ` +
      `${path.basename(next.logPath)}, starts at ${next.baseOffset}. A segment file (probably ` +
      `${segmentFileName(fromOffset, LOG_SUFFIX)}) was removed or moved, or a file was cut or its end zeroed. Put it back; ` +
      'if those records are lost for good, move every segment before the gap out of the directory ' +
      `so the log starts at ${next.baseOffset}. The log never deletes data to close a gap`,
    { file: segment.logPath, fromOffset, toOffset },
  );
}

export function overlap(segment: ScannedSegment, next: ScannedSegment): StorageError {
  return new StorageError(
    'SEGMENT_OVERLAP',
    `${segment.logPath} holds records at or past offset ${next.baseOffset}, where the next segment, ` +
      `${path.basename(next.logPath)}, starts: two files claim the same offsets. Move the one that does ` +
      `not belong to this log out of ${segment.dir}`,
    { file: segment.logPath, fromOffset: next.baseOffset },
  );
}
