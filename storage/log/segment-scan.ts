/**
 * The record walk every check of a segment makes (recovery, index coverage and rebuild, the chain
 * check): record by record from a known position, validating length, CRC and id; and the segment
 * as the walks and checks read it (ScannedSegment). The lookups (segment-lookup.ts), the chain
 * check (segment-chain.ts), where recovery starts (recovery-start.ts) and what its cut discards
 * (truncation.ts) take a ScannedSegment, never segment.ts's Segment, which calls them: they stand
 * beside the class, not above it.
 */
import type { FileHandle, FileIO } from '../io/file-io.js';
import type { ReadWindow } from '../io/read-window.js';
import {
  RECORD_HEADER_BYTES,
  checkRecord,
  frameSizeAt,
  type FrameProblem,
} from '../record/record.js';
import { recordAfterGap, type RecordStart } from '../record/page-alignment.js';
import type { OffsetIndex } from '../segments/offset-index.js';
import { type Offset, type Position, asOffset, asPosition } from '../units.js';

/** How a scan walks. */
export interface ScanOptions {
  /** Add index entries for the records walked (recovery, index rebuild), timed now. */
  readonly reindex: boolean;
  /** Go on after a bad record, from the record after it (resync.ts), instead of stopping. */
  readonly skipDamaged?: boolean;
  /** Stop before the first good record this says yes to. */
  readonly stopAt?: (offset: number, positionBytes: number) => boolean;
  /** Walk no further than this position (default: the end of the data). */
  readonly endBytes?: number;
}

/** What a scan of a segment found. */
export interface ScanResult {
  /** Position after the last good record. */
  readonly endPositionBytes: Position;
  /** Offset the next record would have. */
  readonly nextOffset: Offset;
  readonly records: number;
  /** Why the scan stopped before the end of the file, or null when it reached the end. */
  readonly problem: FrameProblem | null;
}

/** A segment as the walks and checks read it: segment.ts's Segment. */
export interface ScannedSegment {
  readonly baseOffset: number;
  readonly dir: string;
  readonly logPath: string;
  readonly indexPath: string;
  readonly io: FileIO;
  readonly handle: FileHandle;
  /** Where the segment's records end. */
  readonly sizeBytes: number;
  /** The longest record its readers accept. */
  readonly maxRecordBytes: number;
  /** The offset index, loaded (and rebuilt when damaged or behind) on first use. */
  offsetIndex(): OffsetIndex;
  /** Points a reader's window at the segment's file. */
  bindWindow(window: ReadWindow): void;
  /** The first good record after the damaged one at `positionBytes`; null when none is left. */
  recordAfterDamage(
    window: ReadWindow,
    positionBytes: number,
    damagedOffset: number,
  ): RecordStart | null;
  /** The id of the sound record at `positionBytes`, whatever id it holds; null: none there. */
  soundRecordIdAt(window: ReadWindow, positionBytes: number): number | null;
  /** Walks records from `fromPosition` (scanRecords), applying the index rule with `reindex`. */
  scan(
    window: ReadWindow,
    fromPosition: number,
    expectedOffset: number,
    options: ScanOptions,
  ): ScanResult;
  /** A sealed segment's records end at `dataEndBytes`, before its file does. */
  endDataAt(dataEndBytes: number): void;
  rebuildIndexes(): void;
}

/**
 * Walks records from `fromPosition` (expecting `expectedOffset` there), validating length, CRC
 * and id, until the end of the file or the first bad record. With `reindex`, index entries are
 * added for the records walked (recovery, index rebuild), timed now. With `skipDamaged` (an
 * index rebuild of a segment a bit flip hit) the walk goes on after a bad record instead, from
 * the record after it (resync.ts); recovery stops, since a bad record there is a torn tail.
 */
export function scanRecords(
  segment: ScannedSegment,
  window: ReadWindow,
  fromPosition: number,
  expectedOffset: number,
  options: ScanOptions,
  indexRecord: (offset: number, positionBytes: number) => void,
): ScanResult {
  const { reindex, skipDamaged = false, stopAt } = options;
  const endBytes = Math.min(options.endBytes ?? segment.sizeBytes, segment.sizeBytes);
  window.bind(segment.handle);
  let position = fromPosition;
  let offset = expectedOffset;
  let problem: FrameProblem | null = null;
  while (position < endBytes) {
    if (problem !== null && skipDamaged) {
      const resume = segment.recordAfterDamage(window, position, offset);
      if (resume === null) break;
      problem = null;
      position = resume.positionBytes;
      offset = resume.offset;
    }
    let size = checkedSizeAt(segment, window, position, offset);
    const recordsEnd = position;
    if (typeof size === 'string') {
      const afterGap = recordAfterGap(window, position, offset, endBytes, segment.maxRecordBytes);
      problem = afterGap === null ? size : null;
      if (afterGap === null) {
        if (skipDamaged) continue;
        break;
      }
      position = afterGap.positionBytes;
      size = afterGap.sizeBytes;
    }
    if (stopAt?.(offset, position) === true) {
      // Stopped before this record: the walk ends where the one before it ended, before any gap.
      position = recordsEnd;
      break;
    }
    if (reindex) indexRecord(offset, position);
    position += size;
    offset++;
  }
  return {
    endPositionBytes: asPosition(position),
    nextOffset: asOffset(offset),
    records: offset - expectedOffset,
    problem,
  };
}

/** The size of record `offset` when it is whole at `position`; else why it is not. */
function checkedSizeAt(
  segment: ScannedSegment,
  window: ReadWindow,
  position: number,
  offset: number,
): number | FrameProblem {
  const at = window.ensure(position, RECORD_HEADER_BYTES, segment.sizeBytes);
  if (at < 0) return 'truncated';
  const size = frameSizeAt(window.buffer, at, segment.maxRecordBytes);
  if (typeof size === 'string') return size;
  const whole = window.ensure(position, size, segment.sizeBytes);
  return (whole < 0 ? 'truncated' : checkRecord(window.buffer, whole, size, offset)) ?? size;
}
