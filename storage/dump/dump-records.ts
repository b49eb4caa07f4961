/**
 * The record walk of a dump (dump.ts): every good record and every damaged one a good record
 * follows, then what lies after the last good record: damaged bytes, the zero tail, or the older
 * records behind a recycled file's data.
 */
import * as path from 'node:path';
import type { FileIO } from '../io/file-io.js';
import { ReadWindow, SCAN_WINDOW_BYTES, endOfNonZeroBytes } from '../io/read-window.js';
import { RECORD_HEADER_BYTES, checkRecord, frameSizeAt, storedCrcAt } from '../record/record.js';
import { findRecordAfterDamage } from '../record/resync.js';
import { recordAfterGap } from '../record/page-alignment.js';
import { findRecycledTail } from '../log/recycled-tail.js';
import { startsLikeRecord } from '../log/segment-chain.js';
import type { SegmentEnd } from './dump-chain.js';
import type { DumpedRecord, DumpedRecycled, DumpedZeros } from './dump-entries.js';

/** Where a segment's walk ended: the chain's view (SegmentEnd) and the entries for the tail. */
export interface RecordsEnd extends SegmentEnd {
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
export function* dumpRecords(
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
      const afterGap = recordAfterGap(window, position, expected, sizeBytes, maxRecordBytes);
      if (afterGap !== null) {
        position = afterGap.positionBytes;
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
