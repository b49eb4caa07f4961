/**
 * What recovery's cut of a log's tail discards (log-loader.ts): the bytes and record-shaped frames
 * from the first bad record to the last non-zero byte, the zeros after them, and in a recycled
 * file (log.ts, segment reuse) the older segment's records apart from a torn write.
 */
import { RECORD_HEADER_BYTES, frameSizeAt } from '../record/record.js';
import { ReadWindow, SCAN_WINDOW_BYTES, endOfNonZeroBytes } from '../io/read-window.js';
import { findRecycledTail } from './recycled-tail.js';
import type { Segment } from './segment.js';
import type { ScanResult } from './segment-scan.js';

export interface TruncationReport {
  readonly segment: string;
  readonly positionBytes: number;
  /** Bytes cut up to the last non-zero byte: data that was written but is not a whole record. */
  readonly discardedBytes: number;
  /** Zero bytes after that: preallocated or zero-filled space, nothing that was ever data. */
  readonly zeroTailBytes: number;
  /**
   * In a recycled file (log.ts, segment reuse): the bytes from the end of the discarded ones to
   * the end of the file, records of the older segment the file held (and any zeros after them),
   * never data of this segment. Discarded then counts only frames that carry this segment's
   * next ids. 0 in a file that was not recycled.
   */
  readonly recycledBytes: number;
  /** Record-shaped frames in the discarded bytes (a torn last record counts as one). */
  readonly discardedRecords: number;
  readonly reason: string;
}

/** The report of cutting `segment` where `scan` stopped; read before the cut is made. */
export function truncateAt(
  segment: Segment,
  scan: ScanResult,
  maxRecordBytes: number,
): TruncationReport {
  const window = new ReadWindow(segment.io, SCAN_WINDOW_BYTES);
  window.bind(segment.handle);
  const from = scan.endPositionBytes;
  const { baseOffset, sizeBytes } = segment;
  const recycled = findRecycledTail(
    window,
    sizeBytes,
    from,
    scan.nextOffset,
    baseOffset,
    maxRecordBytes,
  );
  if (recycled !== null) {
    // The older records are not read to their end: the report needs where they start only.
    const { tornEndBytes, tornRecords } = recycled;
    return {
      segment: segment.logPath,
      positionBytes: from,
      discardedBytes: tornEndBytes - from,
      zeroTailBytes: 0,
      recycledBytes: segment.sizeBytes - tornEndBytes,
      discardedRecords: tornRecords,
      reason: tornRecords > 0 ? (scan.problem ?? 'unknown') : "an older segment's records follow",
    };
  }
  const dataEnd = endOfNonZeroBytes(window, from, segment.sizeBytes);
  const discardedBytes = dataEnd - from;
  const discardedRecords =
    discardedBytes === 0 ? 0 : countFrames(segment, window, from, maxRecordBytes);
  return {
    segment: segment.logPath,
    positionBytes: from,
    discardedBytes,
    zeroTailBytes: segment.sizeBytes - dataEnd,
    recycledBytes: 0,
    discardedRecords,
    reason: scan.problem ?? 'unknown',
  };
}

/** Frames that look like records (a plausible length) from `from` to the end of the file. */
function countFrames(
  segment: Segment,
  window: ReadWindow,
  from: number,
  maxRecordBytes: number,
): number {
  let frames = 0;
  let position = from;
  while (position < segment.sizeBytes) {
    frames++;
    const at = window.ensure(position, RECORD_HEADER_BYTES, segment.sizeBytes);
    if (at < 0) break;
    const size = frameSizeAt(window.buffer, at, maxRecordBytes);
    if (typeof size === 'string') break;
    position += size;
  }
  return frames;
}
