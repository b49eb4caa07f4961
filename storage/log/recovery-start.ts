/**
 * Where recovery starts (log-loader.ts): the recovery point is a hint, trusted only when a walk
 * from the index entry below it lands on it with the next offset it names; otherwise the whole
 * active segment is scanned. A point naming a segment after the last one means the active segment
 * was removed: the open refuses. One naming a segment retention removed stands at the first
 * segment's start.
 */
import * as path from 'node:path';
import { StorageError } from '../errors.js';
import type { ReadWindow } from '../io/read-window.js';
import type { RecoveryPoint } from '../segments/recovery-point.js';
import type { RecoveryCounts, RecoveryReport } from './recovery-report.js';
import { OffsetIndex } from '../segments/offset-index.js';
import type { ScannedSegment } from './segment-scan.js';

/**
 * Where the scan of the active segment starts and what it may cut. `afterSync`: everything
 * from here on was written after the last sync the point vouches for, so the first bad record
 * ends the log (Kafka). Otherwise only what no good record follows is cut.
 */
export interface ScanStart {
  readonly segmentSlot: number;
  readonly positionBytes: number;
  readonly expectedOffset: number;
  readonly afterSync: boolean;
  readonly startedFrom: RecoveryReport['startedFrom'];
  readonly problem: string | null;
  /** The index entry below a trusted point did not land on its record. */
  readonly indexEntryMissed: boolean;
  /**
   * The sealed segment whose background sync a crash may have cut short (the point says so):
   * the one segment whose records may end cleanly before the next segment begins.
   */
  readonly unsyncedBaseOffset: number | null;
}

/**
 * The point is trusted when the data agrees with it: the walk from the index entry below it
 * lands on it with its next offset. It may lie in a sealed segment (a crash between a roll and
 * the point it saves, or a fence that moved it back): the scan then starts there.
 */
export function chooseScanStart(
  segments: readonly ScannedSegment[],
  point: RecoveryPoint | { unreadable: string } | null,
  window: ReadWindow,
  counts: RecoveryCounts,
): ScanStart {
  const lastSlot = segments.length - 1;
  const active = segments[lastSlot]!;
  const whole = (problem: string): ScanStart => ({
    segmentSlot: lastSlot,
    positionBytes: 0,
    expectedOffset: active.baseOffset,
    afterSync: false,
    startedFrom: 'segment-start',
    problem,
    indexEntryMissed: false,
    unsyncedBaseOffset: null,
  });
  if (point === null) return whole('no recovery point was saved');
  if ('unreadable' in point) return whole(`the recovery point is unreadable (${point.unreadable})`);
  if (point.segmentBaseOffset > active.baseOffset) throw activeSegmentMissing(active, point);
  const first = segments[0]!;
  if (point.segmentBaseOffset < first.baseOffset && point.nextOffset <= first.baseOffset)
    return startOfRetainedLog(first);
  const slot = segments.findIndex((segment) => segment.baseOffset === point.segmentBaseOffset);
  if (slot < 0)
    return whole(`the recovery point names segment ${point.segmentBaseOffset}, which is gone`);
  const home = segments[slot]!;
  const check = checkPoint(home, point, window);
  counts.checkedBytes += check.walkedBytes;
  if (check.problem !== null) return whole(check.problem);
  return {
    segmentSlot: slot,
    positionBytes: point.positionBytes,
    expectedOffset: point.nextOffset,
    afterSync: true,
    startedFrom: 'recovery-point',
    problem: null,
    indexEntryMissed: !check.entryLanded,
    unsyncedBaseOffset: point.sealing === true ? home.baseOffset : null,
  };
}

/**
 * The point names a segment retention removed since (under `none` it may stay there until the
 * next roll or flush: a roll's sync that retention overtook saves none), or one an operator
 * removed with the log's oldest: every record left lies past what it vouches for. So it stands
 * at the first segment's start, the point the writer saves in its place (log-sync.ts,
 * #syncedPointStillHere): sealed segments are checked as after any point in an older segment,
 * and a tear in the active one is cut at its first bad record. Taken as no point, the whole scan
 * kept what a power cut tore between good records as damage and served around it.
 */
function startOfRetainedLog(first: ScannedSegment): ScanStart {
  return {
    segmentSlot: 0,
    positionBytes: 0,
    expectedOffset: first.baseOffset,
    afterSync: true,
    startedFrom: 'recovery-point',
    problem: null,
    indexEntryMissed: false,
    unsyncedBaseOffset: null,
  };
}

/** Why the data disagrees with the point (null: it agrees), and the bytes walked to tell. */
function checkPoint(
  segment: ScannedSegment,
  point: RecoveryPoint,
  window: ReadWindow,
): { problem: string | null; walkedBytes: number; entryLanded: boolean } {
  const where = `position ${point.positionBytes} of segment ${point.segmentBaseOffset}`;
  if (point.positionBytes > segment.sizeBytes) {
    return {
      problem: `the recovery point (${where}) is past the end of the segment`,
      walkedBytes: 0,
      entryLanded: true,
    };
  }
  const entry = indexEntryBelowOnDisk(segment, point.positionBytes);
  const entryLanded =
    entry.positionBytes === 0 ||
    segment.soundRecordIdAt(window, entry.positionBytes) === entry.offset;
  const from = entryLanded ? entry : { positionBytes: 0, offset: segment.baseOffset };
  const walk = segment.scan(window, from.positionBytes, from.offset, {
    reindex: false,
    stopAt: (_offset, positionBytes) => positionBytes >= point.positionBytes,
  });
  const walkedBytes = walk.endPositionBytes - from.positionBytes;
  if (walk.endPositionBytes === point.positionBytes && walk.nextOffset === point.nextOffset) {
    return { problem: null, walkedBytes, entryLanded };
  }
  const found =
    walk.endPositionBytes === point.positionBytes
      ? `the data has offset ${walk.nextOffset} there`
      : `the records there end at position ${walk.endPositionBytes}${walk.problem === null ? '' : ` (${walk.problem})`}`;
  return {
    problem: `the recovery point (${where}, next offset ${point.nextOffset}) disagrees with the data: ${found}`,
    walkedBytes,
    entryLanded,
  };
}

/**
 * The index file's last valid entry before `positionBytes`, read without changing the file or
 * the loaded index; the segment's start when there is none.
 */
function indexEntryBelowOnDisk(
  segment: ScannedSegment,
  positionBytes: number,
): { positionBytes: number; offset: number } {
  const { index } = OffsetIndex.load(segment.io, segment.indexPath, positionBytes, 'read');
  const last = index.entries - 1;
  if (last < 0) return { positionBytes: 0, offset: segment.baseOffset };
  return {
    positionBytes: index.positionAt(last),
    offset: segment.baseOffset + index.relativeOffsetAt(last),
  };
}

function activeSegmentMissing(active: ScannedSegment, point: RecoveryPoint): StorageError {
  return new StorageError(
    'LOG_GAP',
    `the recovery point of the log in ${active.dir} says offsets up to ${point.nextOffset - 1} were synced in ` +
      `segment ${point.segmentBaseOffset}, which is missing (the last segment is ${path.basename(active.logPath)}): ` +
      'the active segment was removed or renamed. Put it back; the log refuses to open rather than hand ' +
      'its offsets out again',
    { file: active.dir, fromOffset: active.baseOffset, toOffset: point.nextOffset - 1 },
  );
}
