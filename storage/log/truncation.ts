/**
 * What recovery's cut of a log's tail discards (log-loader.ts): the bytes and record-shaped frames
 * from the first bad record to the last non-zero byte, the zeros after them, and in a recycled
 * file (log.ts, segment reuse) the older segment's records apart from a torn write.
 */
import { RECORD_HEADER_BYTES, frameSizeAt } from '../record/record.js';
import { ReadWindow, SCAN_WINDOW_BYTES, endOfNonZeroBytes } from '../io/read-window.js';
import { findRecycledTail } from './recycled-tail.js';
import type { ScanResult, ScannedSegment } from './segment-scan.js';
import type { TruncationReport } from './recovery-report.js';

/** The report of cutting `segment` where `scan` stopped; read before the cut is made. */
export function truncateAt(
  segment: ScannedSegment,
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
  segment: ScannedSegment,
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
