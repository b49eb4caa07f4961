/**
 * Whether a segment's offset index holds what the index rule (segment.ts) puts in it, as far as
 * short walks can tell: a missing, short or behind index is rebuilt from the log, never trusted
 * (Kafka rebuilds a missing index file too). Recovery asks it of the segment it starts in,
 * a sealed segment's first lookup of the index it loads.
 */
import type { FileIO } from '../io/file-io.js';
import type { OffsetIndex } from '../segments/offset-index.js';
import { LOOKUP_WINDOW_BYTES, ReadWindow } from '../io/read-window.js';

/** A walk that only looks (segment-scan.ts's ScanOptions, without reindexing). */
interface LookingWalk {
  readonly reindex: false;
  readonly skipDamaged?: boolean;
  readonly stopAt: (offset: number, positionBytes: number) => boolean;
  readonly endBytes?: number;
}

/**
 * What the coverage checks read of a segment (segment.ts's Segment, which calls them), named
 * here rather than imported so that they stand beside the segment and its walk, not above them.
 */
export interface CoveredSegment {
  readonly baseOffset: number;
  /** Bytes between index entries (0: an entry for every record). */
  readonly indexIntervalBytes: number;
  readonly io: FileIO;
  offsetIndex(): OffsetIndex;
  /** Walks records from `fromPosition` (segment-scan.ts); what the checks read of the result. */
  scan(
    window: ReadWindow,
    fromPosition: number,
    expectedOffset: number,
    options: LookingWalk,
  ): { readonly endPositionBytes: number; readonly problem: unknown };
}

/**
 * Whether the loaded offset index holds every entry the index rule puts below `endBytes`, as
 * far as two short walks can tell: from the start to the first entry, and from the last entry
 * to `endBytes`. A deleted index fails the first, a shortened one the second (Kafka rebuilds
 * a missing index file too). Entries written under another interval fail as well; the rebuild
 * then follows the interval in force.
 */
export function indexCovers(
  segment: CoveredSegment,
  window: ReadWindow,
  endBytes: number,
): boolean {
  const index = segment.offsetIndex();
  const entries = index.entries;
  const firstExpected = firstEntryPosition(segment, window, endBytes);
  const firstFound = entries === 0 ? null : index.positionAt(0);
  if (firstExpected !== firstFound) return false;
  if (entries === 0) return true;
  return !entryDueAfter(
    segment,
    window,
    index.positionAt(entries - 1),
    segment.baseOffset + index.relativeOffsetAt(entries - 1),
    endBytes,
  );
}

/** Where the rule puts the first entry (the first record past one interval); null: none below `endBytes`. */
function firstEntryPosition(
  segment: CoveredSegment,
  window: ReadWindow,
  endBytes: number,
): number | null {
  const interval = segment.indexIntervalBytes;
  let found: number | null = null;
  const stopAt = (_offset: number, position: number): boolean => {
    if (interval !== 0 && position <= interval) return false;
    found = position;
    return true;
  };
  segment.scan(window, 0, segment.baseOffset, { reindex: false, stopAt, endBytes });
  return found;
}

/** True when a record between the entry at `fromPosition` and `endBytes` should have had an entry. */
function entryDueAfter(
  segment: CoveredSegment,
  window: ReadWindow,
  fromPosition: number,
  fromOffset: number,
  endBytes: number,
): boolean {
  const interval = segment.indexIntervalBytes;
  let due = false;
  const stopAt = (_offset: number, position: number): boolean => {
    due = position !== fromPosition && (interval === 0 || position - fromPosition > interval);
    return due;
  };
  const walk = segment.scan(window, fromPosition, fromOffset, { reindex: false, stopAt, endBytes });
  return due || (walk.problem !== null && walk.endPositionBytes < endBytes);
}

/**
 * Walks the records after the last entry (at most one interval and one record, when the index
 * is whole) as a rebuild would, damaged records skipped: the index is behind when the rebuild
 * would add an entry, or when the last entry does not land on its record. A damaged record the
 * rebuild cannot index does not count, or its segment would be rebuilt at every open.
 */
export function indexBehind(segment: CoveredSegment, index: OffsetIndex): boolean {
  const last = index.entries - 1;
  const lastPosition = last < 0 ? 0 : index.positionAt(last);
  const lastOffset = segment.baseOffset + (last < 0 ? 0 : index.relativeOffsetAt(last));
  const interval = segment.indexIntervalBytes;
  let first = true;
  let behind = false;
  const stopAt = (_offset: number, position: number): boolean => {
    const landed = !first || last < 0 || position === lastPosition;
    first = false;
    const isLastEntry = last >= 0 && position === lastPosition;
    behind = !landed || (!isLastEntry && (interval === 0 || position - lastPosition > interval));
    return behind;
  };
  const window = new ReadWindow(segment.io, LOOKUP_WINDOW_BYTES);
  segment.scan(window, lastPosition, lastOffset, { reindex: false, skipDamaged: true, stopAt });
  return behind;
}
