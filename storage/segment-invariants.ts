/**
 * The invariant checks both logs share (Log.checkInvariants, BatchedLog.checkInvariants): what
 * must hold between calls of a list of segments and of each segment's end. For tests and tools
 * only: they walk every segment and every loaded index, so no append calls them.
 */
import { assert } from './errors.js';
import type { SyncedPoint } from './log-sync.js';

/** What the list check asks of a segment of either kind. */
export interface CheckedSegment {
  readonly baseOffset: number;
  /** Asserts the segment's own invariants; `nextBaseOffset` null for the active segment. */
  checkInvariants(nextBaseOffset: number | null): void;
}

/**
 * Asserts that `segments` is a log's list: not empty, sorted by base offset, `baseOffsets` its
 * mirror (what lookups search), and every segment's own invariants against the next one's base.
 */
export function checkSegmentList(
  segments: readonly CheckedSegment[],
  baseOffsets: readonly number[],
): void {
  assert(segments.length > 0, 'a log has an active segment');
  assert(baseOffsets.length === segments.length, 'a base offset per segment');
  for (const [i, segment] of segments.entries()) {
    assert(baseOffsets[i] === segment.baseOffset, "each base offset is its segment's");
    const next = segments[i + 1];
    if (next !== undefined)
      assert(segment.baseOffset < next.baseOffset, 'segments are sorted by base offset');
    segment.checkInvariants(next?.baseOffset ?? null);
  }
}

/**
 * Asserts a segment's end against the next segment's base and returns the end: the active
 * segment (`nextBaseOffset` null) knows its end; a sealed one whose end is known (it was active,
 * or recovery scanned it) ends exactly where the next begins, else the next base stands in.
 */
export function checkedSegmentEnd(
  logPath: string,
  baseOffset: number,
  nextOffset: number | null,
  nextBaseOffset: number | null,
): number {
  if (nextBaseOffset === null) assert(nextOffset !== null, `${logPath}: the active end is known`);
  else if (nextOffset !== null)
    assert(nextOffset === nextBaseOffset, `${logPath}: the segment ends where the next begins`);
  const endOffset = nextOffset ?? nextBaseOffset!;
  assert(endOffset >= baseOffset, `${logPath}: the end is not before the base`);
  return endOffset;
}

/**
 * Asserts that the synced point is not past the log's end, nor past its segment's data while
 * that segment is still in the log (retention may have removed it since).
 */
export function checkSyncedPoint(
  segments: readonly object[],
  synced: SyncedPoint<{ readonly sizeBytes: number }>,
  endOffset: number,
): void {
  assert(synced.nextOffset <= endOffset, 'the synced point is not past the end');
  if (!segments.includes(synced.segment)) return;
  assert(synced.positionBytes <= synced.segment.sizeBytes, 'the synced point is in its segment');
}
