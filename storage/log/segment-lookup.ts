/**
 * Reading one record of a segment (segment.ts) by offset, with damage recovery: the walk starts
 * at the offset index's entry at or below the target and steps by record lengths checking only
 * headers; a damaged record on the way is stepped over (resync.ts) as a reader would, and only
 * the target itself, or a target lost with a damaged record before it, is CORRUPT_RECORD. An
 * index entry that does not land on its record means the index (a cache) is wrong, not the log:
 * the segment rebuilds it and the lookup runs once more. Also the lookup explained step by step
 * (the course, lesson 2), the sequential reader's read at a known position, and the id of a sound
 * record wherever it lies.
 */
import { largestLowerBoundSlot } from '../segments/index-file.js';
import type { ReadWindow } from '../io/read-window.js';
import {
  RECORD_HEADER_BYTES,
  checkRecord,
  corruptRecord,
  decodeCheckedRecord,
  frameSizeAt,
  recordIdAt,
  type DecodedRecord,
  type FrameProblem,
} from '../record/record.js';
import { type RecordStart, recordAfterGap } from '../record/page-alignment.js';
import type { ScannedSegment } from './segment-scan.js';

export interface SegmentRecord extends DecodedRecord {
  readonly positionBytes: number;
  readonly sizeBytes: number;
}

export interface IndexEntry {
  readonly relativeOffset: number;
  readonly positionBytes: number;
}

/** One lookup, step by step: what the index said and how far the walk went. */
export interface LookupWalk {
  readonly segmentBaseOffset: number;
  readonly relativeOffset: number;
  readonly indexEntries: number;
  /** Index entries compared by the binary search. */
  readonly comparisons: number;
  /** The largest entry at or below the target; null: the walk starts at position 0. */
  readonly indexEntry: IndexEntry | null;
  readonly nextIndexEntry: IndexEntry | null;
  readonly recordPositionBytes: number;
  readonly recordSizeBytes: number;
  /** Bytes read from the walk's start to the end of the target record. */
  readonly stepForwardBytes: number;
  /** Records read, the target included. */
  readonly recordsStepped: number;
}

/** An index entry that does not land on its record: the index is rebuilt, never trusted. */
class IndexEntryMismatch extends Error {}

/**
 * Finds, checks and decodes the record for `offset`; throws CORRUPT_RECORD or returns null.
 * When the index entry the walk starts from does not land on its record, the index (a cache)
 * is wrong, not the log: it is rebuilt and the lookup tried once more.
 */
export function findRecord(
  segment: ScannedSegment,
  window: ReadWindow,
  offset: number,
): SegmentRecord | null {
  try {
    return walkTo(segment, window, offset);
  } catch (error) {
    if (!(error instanceof IndexEntryMismatch)) throw error;
    segment.rebuildIndexes();
    return walkTo(segment, window, offset);
  }
}

/**
 * Steps from the index entry at or below `offset` by record lengths, checking only headers. A
 * bad header means a damaged record: that one, or the one before it if its length (stepped
 * over unchecked) is what led here. The damaged record is stepped over (resync.ts); the target
 * itself, or a target lost with a damaged record before it, is CORRUPT_RECORD.
 */
function walkTo(segment: ScannedSegment, window: ReadWindow, offset: number): SegmentRecord | null {
  const start = walkStart(segment, offset);
  let position = start.positionBytes;
  let current = start.offset;
  let previous = -1;
  segment.bindWindow(window);
  window.fill(position, start.endBytes - position, segment.sizeBytes);
  while (position !== segment.sizeBytes) {
    // Past the end: the length just stepped over was damaged (it still looked plausible).
    const size =
      position > segment.sizeBytes
        ? 'truncated'
        : headerProblem(segment, window, position, current);
    if (typeof size === 'number' && current === offset)
      return decodeAt(segment, window, position, size, offset);
    if (typeof size === 'number') {
      previous = position;
      position += size;
      current++;
      continue;
    }
    if (position === start.positionBytes && start.fromIndex) throw new IndexEntryMismatch();
    const afterGap = recordAfterGap(
      window,
      position,
      current,
      segment.sizeBytes,
      segment.maxRecordBytes,
    );
    if (afterGap !== null) {
      position = afterGap.positionBytes;
      continue;
    }
    const before = previous < 0 ? null : recordProblem(segment, window, previous, current - 1);
    const damaged =
      before === null
        ? { position, offset: current, problem: size }
        : { position: previous, offset: current - 1, problem: before };
    if (damaged.offset === offset)
      throw corruptRecord(segment.logPath, damaged.position, damaged.problem, offset);
    const resume = segment.recordAfterDamage(window, damaged.position, damaged.offset);
    if (resume === null || resume.offset > offset) {
      throw corruptRecord(
        segment.logPath,
        damaged.position,
        `lost with the damaged record for offset ${damaged.offset}`,
        offset,
      );
    }
    position = resume.positionBytes;
    current = resume.offset;
    previous = -1;
  }
  return null;
}

/** The record's size when its header is plausible and holds `expectedOffset`; else why not. */
function headerProblem(
  segment: ScannedSegment,
  window: ReadWindow,
  position: number,
  expectedOffset: number,
): number | FrameProblem {
  const at = window.ensure(position, RECORD_HEADER_BYTES, segment.sizeBytes);
  if (at < 0) return 'truncated';
  const size = frameSizeAt(window.buffer, at, segment.maxRecordBytes);
  if (typeof size === 'string') return size;
  return recordIdAt(window.buffer, at) === expectedOffset ? size : 'unexpected id';
}

/** Why the whole record at `position` is not record `expectedOffset`; null when it is. */
function recordProblem(
  segment: ScannedSegment,
  window: ReadWindow,
  position: number,
  expectedOffset: number,
): FrameProblem | null {
  const size = headerProblem(segment, window, position, expectedOffset);
  if (typeof size === 'string') return size;
  const whole = window.ensure(position, size, segment.sizeBytes);
  return whole < 0 ? 'truncated' : checkRecord(window.buffer, whole, size, expectedOffset);
}

/**
 * Where a walk to `offset` starts: the index entry at or below it, else the segment start; and
 * where the record must end: at the next entry (whose offset is above the target) or the end.
 */
export function walkStart(
  segment: ScannedSegment,
  offset: number,
): RecordStart & { readonly fromIndex: boolean; readonly endBytes: number } {
  const index = segment.offsetIndex();
  const slot = index.largestLowerBoundSlotFor(offset - segment.baseOffset);
  const endBytes = slot + 1 < index.entries ? index.positionAt(slot + 1) : segment.sizeBytes;
  if (slot < 0) return { positionBytes: 0, offset: segment.baseOffset, fromIndex: false, endBytes };
  const entryOffset = segment.baseOffset + index.relativeOffsetAt(slot);
  return {
    positionBytes: index.positionAt(slot),
    offset: entryOffset,
    fromIndex: true,
    endBytes,
  };
}

/** The lookup of `offset` step by step (the course, lesson 2), for tools and experiments. */
export function explainLookup(
  segment: ScannedSegment,
  window: ReadWindow,
  offset: number,
): LookupWalk {
  const index = segment.offsetIndex();
  const relativeOffset = offset - segment.baseOffset;
  let comparisons = 0;
  const slot = largestLowerBoundSlot(
    (i) => {
      comparisons++;
      return index.relativeOffsetAt(i);
    },
    index.entries,
    relativeOffset,
  );
  const entryAt = (i: number): IndexEntry | null =>
    i >= 0 && i < index.entries
      ? { relativeOffset: index.relativeOffsetAt(i), positionBytes: index.positionAt(i) }
      : null;
  const indexEntry = entryAt(slot);
  const record = findRecord(segment, window, offset);
  if (record === null)
    throw corruptRecord(segment.logPath, segment.sizeBytes, 'offset not in segment', offset);
  const startBytes = indexEntry?.positionBytes ?? 0;
  return {
    segmentBaseOffset: segment.baseOffset,
    relativeOffset,
    indexEntries: index.entries,
    comparisons,
    indexEntry,
    nextIndexEntry: entryAt(slot + 1),
    recordPositionBytes: record.positionBytes,
    recordSizeBytes: record.sizeBytes,
    stepForwardBytes: record.positionBytes + record.sizeBytes - startBytes,
    recordsStepped: relativeOffset - (indexEntry?.relativeOffset ?? 0) + 1,
  };
}

function decodeAt(
  segment: ScannedSegment,
  window: ReadWindow,
  position: number,
  size: number,
  offset: number,
): SegmentRecord {
  const at = window.ensure(position, size, segment.sizeBytes);
  if (at < 0) throw corruptRecord(segment.logPath, position, 'truncated', offset);
  const problem = checkRecord(window.buffer, at, size, offset);
  if (problem !== null) throw corruptRecord(segment.logPath, position, problem, offset);
  // Built field by field: an object spread here cost ~1.5 µs per record, more than the CRC.
  const { id, attributes, body } = decodeCheckedRecord(window.buffer, at, size);
  return { id, attributes, body, positionBytes: position, sizeBytes: size };
}

/**
 * Reads the record at a known position (sequential readers), or after a gap there
 * (page-alignment.ts); null at the end of the file. The
 * window must be bound to this segment (`bindWindow`) by the caller, once per segment: binding
 * here, per record, would throw away the window and read it again for every record.
 */
export function readRecordAt(
  segment: ScannedSegment,
  window: ReadWindow,
  positionBytes: number,
  expectedOffset: number,
): SegmentRecord | null {
  if (positionBytes >= segment.sizeBytes) return null;
  const at = window.ensure(positionBytes, RECORD_HEADER_BYTES, segment.sizeBytes);
  const size = at < 0 ? 'truncated' : frameSizeAt(window.buffer, at, segment.maxRecordBytes);
  if (typeof size === 'number' && recordIdAt(window.buffer, at) === expectedOffset)
    return decodeAt(segment, window, positionBytes, size, expectedOffset);
  const afterGap = recordAfterGap(
    window,
    positionBytes,
    expectedOffset,
    segment.sizeBytes,
    segment.maxRecordBytes,
  );
  if (afterGap !== null)
    return decodeAt(segment, window, afterGap.positionBytes, afterGap.sizeBytes, expectedOffset);
  if (typeof size === 'string')
    throw corruptRecord(segment.logPath, positionBytes, size, expectedOffset);
  // Throws with the record's own problem: its CRC, else its id.
  return decodeAt(segment, window, positionBytes, size, expectedOffset);
}
