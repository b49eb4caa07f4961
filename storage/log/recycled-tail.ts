/**
 * What follows the last good record of a recycled segment file (log.ts, segment reuse), told
 * apart from a torn write for the recovery report and `loglab dump`.
 *
 * A recycled file held an older segment before retention removed it; the roll that reused it
 * zeroed its first record header and left the rest. So past the new segment's last record lie,
 * in order: the frames of this segment's own writes that did not all reach the device (each
 * opens with the id expected there: a torn record, and any written after it), then what is left
 * of the older segment's records — a piece of the one the new data ends inside, then whole ones,
 * sound, each with an id below the segment's base offset — then zeros, if the segment grew past
 * the spare's end. None of the older records can pass for the next record, whose id is at or
 * above the base offset; the tail is cut all the same, so a write of this segment that a crash
 * cut short can never come back (log-loader.ts).
 *
 * The older records are found by the first of them that is whole: it starts at most one record
 * (the log's record limit) after the torn frames end, or after the zeros a page fill
 * (page-fill.ts) wrote there, which count with the older records in the report. Where none
 * does (the new data reached the older segment's last record), the tail reads as a fresh file's
 * would: bytes that are not a record, reported as discarded.
 */
import { MAX_PAGE_BYTES, frameAfterGap } from '../record/page-alignment.js';
import { type ReadWindow, startOfNonZeroBytes } from '../io/read-window.js';
import {
  LENGTH_FIELD_BYTES,
  RECORD_HEADER_BYTES,
  checkRecord,
  frameSizeAt,
  recordIdAt,
} from '../record/record.js';

export interface RecycledTail {
  /** Frames after the last good record that carry the ids expected there: this segment's. */
  readonly tornRecords: number;
  /** Where those frames end (the last good record's end when there are none), within the file. */
  readonly tornEndBytes: number;
  /** Where the first whole older record starts: at or after `tornEndBytes`. */
  readonly olderRecordBytes: number;
}

/**
 * The tail from `fromBytes` (after the last good record, whose successor would be
 * `expectedOffset`) when older records of a recycled file follow; null when none do. `window`
 * is bound to the file; `baseOffset` is the lowest offset the segment may hold.
 */
export function findRecycledTail(
  window: ReadWindow,
  fileSizeBytes: number,
  fromBytes: number,
  expectedOffset: number,
  baseOffset: number,
  maxRecordBytes: number,
): RecycledTail | null {
  // The torn write may have started after a gap (page-alignment.ts).
  const torn = frameAfterGap(window, fromBytes, expectedOffset, fileSizeBytes, maxRecordBytes);
  let position = torn === null ? fromBytes : torn.positionBytes;
  let offset = expectedOffset;
  for (;;) {
    const at = window.ensure(position, RECORD_HEADER_BYTES, fileSizeBytes);
    if (at < 0) break;
    const size = frameSizeAt(window.buffer, at, maxRecordBytes);
    if (typeof size === 'string' || recordIdAt(window.buffer, at) !== offset) break;
    position = Math.min(position + size, fileSizeBytes);
    offset++;
  }
  if (offset === expectedOffset) position = fromBytes;
  const tornRecords = offset - expectedOffset;
  // A page fill (page-fill.ts) may have zeroed the rest of the last page written: the older
  // records start after those zeros. A record's length field opens with zero bytes when it is
  // short, so one may start up to LENGTH_FIELD_BYTES - 1 bytes before the first non-zero byte.
  const zerosEnd = startOfNonZeroBytes(
    window,
    position,
    Math.min(fileSizeBytes, position + MAX_PAGE_BYTES),
  );
  const searchFrom = Math.max(position, zerosEnd - (LENGTH_FIELD_BYTES - 1));
  const searchEnd = Math.min(fileSizeBytes - RECORD_HEADER_BYTES, searchFrom + maxRecordBytes);
  for (let at = searchFrom; at <= searchEnd; at++) {
    if (isOlderRecordAt(window, fileSizeBytes, at, baseOffset, maxRecordBytes)) {
      return { tornRecords, tornEndBytes: position, olderRecordBytes: at };
    }
  }
  return null;
}

/** A sound record (plausible length, good CRC) whose id is below `baseOffset`. */
function isOlderRecordAt(
  window: ReadWindow,
  fileSizeBytes: number,
  positionBytes: number,
  baseOffset: number,
  maxRecordBytes: number,
): boolean {
  const at = window.ensure(positionBytes, RECORD_HEADER_BYTES, fileSizeBytes);
  if (at < 0) return false;
  const size = frameSizeAt(window.buffer, at, maxRecordBytes);
  if (typeof size === 'string' || recordIdAt(window.buffer, at) >= baseOffset) return false;
  const whole = window.ensure(positionBytes, size, fileSizeBytes);
  return whole >= 0 && checkRecord(window.buffer, whole, size) === null;
}
