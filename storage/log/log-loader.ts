/**
 * Opening a log checks and recovers it (Kafka's LogLoader; lesson 3 as the course, lesson 2, tells
 * it: "read the file from a known good point, find where the damage starts, and cut the file
 * there").
 *
 * The data is the truth and the recovery point a hint. Every sealed segment was fdatasynced
 * before the next one was created (log.ts, the roll), so a crash can tear only what follows the
 * last sync — the active segment, or, after a fence moved the point back, the segments from it:
 * - The segment chain is checked (segment-chain.ts): a removed, renamed or overlapping segment
 *   makes the open refuse with a typed error; nothing is deleted to make the chain whole.
 * - The recovery point says how far the log was synced. It is used only when a walk from the
 *   index entry below it lands exactly on it with the next offset it names; then the records
 *   after it are the unsynced tail, checked one by one (length, CRC, id) and cut at the first bad
 *   one, later segments removed, as Kafka does after its recovery point. A point that disagrees
 *   with the data costs a scan of the whole active segment, never data: that scan steps over a
 *   damaged record that a good one follows and cuts only what no good record follows.
 * - Index entries past the trusted point are re-derived from the log; a missing or short index
 *   below it is rebuilt (index-coverage.ts); lost time-index entries get the open time.
 * If anything was scanned or cut, the repaired state is synced and a new recovery point saved.
 * A read-only open does the same checks and reads, and changes nothing on disk.
 *
 * A recycled active segment (log.ts, segment reuse) needs nothing more: past its data lie an
 * older segment's records, every id below its base offset, so the first of them ends the scan
 * as a bad record does, and the cut removes them with anything torn. The report tells the two
 * apart (recycled-tail.ts). A spare segment file found by a writable open is unlinked first.
 *
 * Where the scan starts is recovery-start.ts's, what a cut discards truncation.ts's, and the
 * report recovery-report.ts's.
 */
import * as path from 'node:path';
import type { LogConfig } from './log-config.js';
import { StorageError } from '../errors.js';
import { Segment } from './segment.js';
import {
  closeSegments,
  deleteSegmentsDurably,
  withSegmentsOpened,
} from '../segments/segment-list.js';
import type { ScanResult } from './segment-scan.js';
import { SCAN_WINDOW_BYTES, ReadWindow } from '../io/read-window.js';
import {
  LOG_SUFFIX,
  listSegmentBaseOffsets,
  spareLayoutPath,
  spareNames,
  sparePath,
  RECOVERY_POINT_FILE,
} from '../segments/segment-files.js';
import { checkDirectoryEntries, checkSoleLink } from '../io/directory-entries.js';
import { logFileUses } from '../segments/log-files.js';
import { readRecordLimit, settleRecordLimit } from './record-limit.js';
import {
  type RecoveryPoint,
  readRecoveryPoint,
  sealingUnder,
  writeRecoveryPoint,
} from '../segments/recovery-point.js';
import {
  type RecoveryCounts,
  type RecoveryReport,
  emptyReport,
  type ChainFinding,
} from './recovery-report.js';
import { type ScanStart, chooseScanStart } from './recovery-start.js';
import { truncateAt } from './truncation.js';
import { indexCovers } from './index-coverage.js';
import { checkSealedEnd, checkSegmentName, overlap, trailing } from './segment-chain.js';
import { MAX_END_OFFSET_WRITABLE, asPosition } from '../units.js';

export interface LoadedLog {
  readonly segments: Segment[];
  readonly report: RecoveryReport;
  /** What segments were opened with: the log's stored record limit (record-limit.ts) for reading. */
  readonly segmentConfig: LogConfig;
  /** The recovery point on the device once opening is done; null when none is trusted. */
  readonly savedPoint: RecoveryPoint | null;
}

/** Checks walk about one index interval per segment: a small window keeps them cheap. */
const CHECK_WINDOW_BYTES = 8 * 1024;

/** Opens the log's segments and recovers them; a writable caller has made `dir` durable. */
export function loadLog(dir: string, configured: LogConfig): LoadedLog {
  if (configured.readOnly && !configured.io.exists(dir)) throw logNotFound(dir);
  // Before anything is written, the record limit included.
  const writable = !configured.readOnly;
  checkDirectoryEntries(configured.io, dir, (names) => logFileUses(dir, names), writable);
  const config = withStoredRecordLimit(dir, configured);
  const baseOffsets = listSegmentBaseOffsets(config.io, dir);
  if (baseOffsets.length === 0 && config.readOnly) throw logNotFound(dir);
  if (baseOffsets.length === 0) {
    refuseIfPointVouches(dir, config);
    const created = newLog(dir, config);
    const report = { ...created.report, spareRemoved: removeSpare(dir, config) };
    return { ...created, report, segmentConfig: config };
  }
  const open = (base: number): Segment => Segment.existing(config.io, dir, base, config);
  return withSegmentsOpened(baseOffsets, open, (segments) => {
    const recovered = recover(dir, config, segments);
    // After every refusal, before the log can roll: see removeSpare.
    const report = { ...recovered.report, spareRemoved: removeSpare(dir, config) };
    return { ...recovered, report, segmentConfig: config };
  });
}

/** The configured limit, raised to the stored one; a writable open stores a larger one. */
function withStoredRecordLimit(dir: string, configured: LogConfig): LogConfig {
  const { io } = configured;
  const limitBytes = configured.readOnly
    ? Math.max(readRecordLimit(io, dir) ?? 0, configured.maxRecordBytes)
    : settleRecordLimit(io, dir, configured.maxRecordBytes);
  return limitBytes === configured.maxRecordBytes
    ? configured
    : { ...configured, maxRecordBytes: limitBytes };
}

/**
 * A writable open unlinks the spare segment file, durably, once recovery is done: the
 * process that made it is gone, and a power cut may have left its name beside a segment's for
 * one file (a rename cut short), so the next roll must not write over it. A spare being laid out
 * when the process stopped goes too. Read-only opens leave both alone. Returns whether there was
 * either.
 */
function removeSpare(dir: string, config: LogConfig): boolean {
  if (config.readOnly) return false;
  const found = [sparePath(dir), spareLayoutPath(dir)].filter((file) => config.io.exists(file));
  if (found.length === 0) return false;
  for (const file of found) config.io.unlink(file);
  config.io.fsyncDir(dir);
  return true;
}

/**
 * A directory without segments is a new log — unless its recovery point says records were
 * synced there: then every segment was removed, and starting again would hand their offsets out
 * again. (A point at its segment's start vouches for nothing: a crash can keep a new log's point
 * and lose its first segment's name.)
 */
function refuseIfPointVouches(dir: string, config: LogConfig): void {
  const point = readRecoveryPoint(config.io, dir);
  if (point === null || 'unreadable' in point || point.nextOffset === point.segmentBaseOffset)
    return;
  throw new StorageError(
    'LOG_GAP',
    `the log in ${dir} has no segment files, but its recovery point says offsets up to ${point.nextOffset - 1} ` +
      'were synced there: its segments were removed or moved. Put them back; to start a new log ' +
      `instead, remove ${path.join(dir, RECOVERY_POINT_FILE)} too`,
    { file: dir, fromOffset: point.segmentBaseOffset, toOffset: point.nextOffset - 1 },
  );
}

function logNotFound(dir: string): StorageError {
  return new StorageError(
    'LOG_NOT_FOUND',
    `${dir} holds no log (no ${LOG_SUFFIX} segment files); check the path. A read-only open never creates one`,
    { file: dir },
  );
}

function newLog(dir: string, config: LogConfig): Omit<LoadedLog, 'segmentConfig'> {
  const segment = Segment.create(config.io, dir, config.baseOffset, config);
  let savedPoint: RecoveryPoint;
  try {
    savedPoint = savePointAtEnd(dir, config, segment);
  } catch (error) {
    segment.abandon();
    throw error;
  }
  return { segments: [segment], report: { ...emptyReport(), startedFrom: 'new-log' }, savedPoint };
}

function recover(
  dir: string,
  config: LogConfig,
  segments: Segment[],
): Omit<LoadedLog, 'segmentConfig'> {
  const window = new ReadWindow(config.io, CHECK_WINDOW_BYTES);
  const counts: RecoveryCounts = {
    scannedSegments: 0,
    scannedBytes: 0,
    scannedRecords: 0,
    checkedBytes: 0,
    indexEntriesRebuilt: 0,
    timeIndexEntriesAdded: 0,
  };
  const findings: ChainFinding[] = [];
  for (const segment of segments) checkSegmentName(segment, window);
  const onDevice = readRecoveryPoint(config.io, dir);
  const start = chooseScanStart(segments, onDevice, window, counts);
  const lastSlot = segments.length - 1;
  // The one sealed segment a crash may have left short: the point's own, when it says so.
  const sealing =
    start.unsyncedBaseOffset !== null && start.segmentSlot < lastSlot ? start.segmentSlot : -1;
  for (let slot = 0; slot < lastSlot; slot++) {
    if (slot !== sealing)
      counts.checkedBytes += checkSealedEnd(segments[slot]!, segments[slot + 1]!, window, findings);
  }
  // Every refusal comes before anything is written: the scans below load indexes for appends.
  if (sealing >= 0) checkSealingEnd(segments[sealing]!, segments[sealing + 1]!, start, window);
  // Sealed segments the tail's walk may cut may have had other links (directory-entries.ts).
  if (!config.readOnly && sealing >= 0)
    for (const segment of segments.slice(sealing, lastSlot))
      checkSoleLink(config.io, segment.logPath, spareNames(dir));
  const tail = recoverTail(
    segments,
    start,
    sealing >= 0 ? sealing : lastSlot,
    window,
    counts,
    findings,
  );
  checkOffsetLimit(dir, config, tail.scan.nextOffset);
  const truncation =
    tail.scan.problem === null ? null : truncateAt(tail.last, tail.scan, config.maxRecordBytes);
  const removed = removeAfter(dir, config, segments, tail.last);
  tail.last.activate(tail.scan.endPositionBytes, tail.scan.nextOffset);
  const active = segments[segments.length - 1]!;
  for (const segment of tail.scanned) if (segment !== active) segment.seal();
  const changed =
    !start.afterSync || counts.scannedBytes > 0 || truncation !== null || tail.indexRebuilt;
  // Without a point that vouches for the data, nothing says the files reached the device (a
  // process may have died before syncing them): they are synced, and a point saved, now.
  const persisted =
    changed && !config.readOnly
      ? persistRecovery(dir, config, start.afterSync ? tail.scanned : segments, active)
      : null;
  return {
    segments,
    // Unchanged, the log was opened at the point it trusted.
    savedPoint: persisted ?? (changed ? null : (onDevice as RecoveryPoint)),
    report: {
      startedFrom: start.startedFrom,
      recoveryPointProblem: start.problem,
      ...counts,
      truncation,
      removedSegments: removed.map((segment) => segment.logPath),
      spareRemoved: false,
      findings,
      warnings: findings.map((finding) => finding.message),
    },
  };
}

function indexCoversBelow(home: Segment, start: ScanStart, window: ReadWindow): boolean {
  home.loadIndexesForRecovery(start.positionBytes, start.expectedOffset);
  return indexCovers(home, window, start.positionBytes);
}

/**
 * The segment a roll under `none` sealed without waiting for its sync may end short of the next
 * one (a crash before the sync finished), and is then cut there; records at or past the next
 * segment's start are no crash's doing: refused, before anything is written.
 */
function checkSealingEnd(
  segment: Segment,
  next: Segment,
  start: ScanStart,
  window: ReadWindow,
): void {
  const walk = segment.scan(window, start.positionBytes, start.expectedOffset, { reindex: false });
  if (walk.nextOffset > next.baseOffset) throw overlap(segment, next);
}

/** Re-derives the index entries below the trusted point (checked already) of its segment. */
function rebuildIndexBelow(home: Segment, start: ScanStart, counts: RecoveryCounts): void {
  home.loadIndexesForRecovery(0, start.expectedOffset);
  const timeEntriesBefore = home.timeIndex().entries;
  const window = new ReadWindow(home.io, SCAN_WINDOW_BYTES);
  home.scan(window, 0, home.baseOffset, { reindex: true, endBytes: start.positionBytes });
  counts.indexEntriesRebuilt += home.offsetIndex().entries;
  counts.timeIndexEntriesAdded += home.timeIndex().entries - timeEntriesBefore;
}

interface TailScan {
  /** The segment the log now ends in. */
  readonly last: Segment;
  readonly scan: ScanResult;
  readonly scanned: readonly Segment[];
  readonly indexRebuilt: boolean;
}

/**
 * Walks from `firstSlot` (the sealing segment, else the last) to the end of the log, adding
 * index entries; from the point where it lies in a walked segment. After a trusted point
 * everything walked was written after the last sync: the first bad record ends the log, and a
 * sealing segment that ends short ends it too (Kafka). Without a trusted point only what no good
 * record follows ends the log.
 */
function recoverTail(
  segments: readonly Segment[],
  start: ScanStart,
  firstSlot: number,
  window: ReadWindow,
  counts: RecoveryCounts,
  findings: ChainFinding[],
): TailScan {
  const scanned: Segment[] = [];
  let indexRebuilt = false;
  for (let slot = firstSlot; ; slot++) {
    const segment = segments[slot]!;
    const next = segments[slot + 1];
    const fromPoint = slot === start.segmentSlot;
    const from = fromPoint ? start : { positionBytes: 0, expectedOffset: segment.baseOffset };
    if (fromPoint && start.afterSync) {
      // indexCoversBelow loads the indexes as the scan needs them: no second load of the files.
      const rebuild = start.indexEntryMissed || !indexCoversBelow(segment, start, window);
      if (rebuild) rebuildIndexBelow(segment, start, counts);
      indexRebuilt ||= rebuild;
    } else {
      // Time entries cannot be re-derived: those the scan finds records for are kept.
      segment.loadIndexesForRecovery(from.positionBytes, Number.MAX_SAFE_INTEGER);
    }
    const scan = scanSegment(
      segment,
      from.positionBytes,
      from.expectedOffset,
      start.afterSync,
      counts,
      findings,
    );
    scanned.push(segment);
    if (next === undefined || scan.nextOffset < next.baseOffset)
      return { last: segment, scan, scanned, indexRebuilt };
    if (scan.problem !== null) {
      const found = trailing(
        segment,
        new ReadWindow(segment.io, CHECK_WINDOW_BYTES),
        scan.endPositionBytes,
        next,
      );
      if (found !== null) findings.push(found);
      segment.endDataAt(scan.endPositionBytes);
    }
    segment.activate(asPosition(segment.sizeBytes), scan.nextOffset);
  }
}

function scanSegment(
  segment: Segment,
  fromPosition: number,
  expectedOffset: number,
  afterSync: boolean,
  counts: RecoveryCounts,
  findings: ChainFinding[],
): ScanResult {
  const window = new ReadWindow(segment.io, SCAN_WINDOW_BYTES);
  const entriesBefore = segment.offsetIndex().entries;
  const timeEntriesBefore = segment.timeIndex().entries;
  let scan = segment.scan(window, fromPosition, expectedOffset, { reindex: true });
  let records = scan.records;
  while (scan.problem !== null && !afterSync) {
    const resume = segment.recordAfterDamage(window, scan.endPositionBytes, scan.nextOffset);
    if (resume === null) break;
    findings.push(damageKept(segment, scan, resume.offset));
    scan = segment.scan(window, resume.positionBytes, resume.offset, { reindex: true });
    records += scan.records;
  }
  counts.scannedSegments++;
  counts.scannedBytes += scan.endPositionBytes - fromPosition;
  counts.scannedRecords += records;
  counts.indexEntriesRebuilt += Math.max(0, segment.offsetIndex().entries - entriesBefore);
  counts.timeIndexEntriesAdded += Math.max(0, segment.timeIndex().entries - timeEntriesBefore);
  return scan;
}

/**
 * Removes the segments after `last` (a cut in an earlier one): unsynced, written after it.
 * Newest first, each durably before the next, so a power cut meanwhile leaves a chain without
 * a hole (a change the directory fsync has not covered survives a power cut or not on its own).
 * A read-only open leaves them in place and does not read them, as it leaves a torn tail.
 */
function removeAfter(
  dir: string,
  config: LogConfig,
  segments: Segment[],
  last: Segment,
): Segment[] {
  const removed = segments.splice(segments.indexOf(last) + 1).reverse();
  if (config.readOnly) {
    const failures = closeSegments(removed);
    if (failures.length > 0) throw failures[0];
    return removed;
  }
  // On a failure the caller abandons the segments still in the log; these are out of it already.
  deleteSegmentsDurably(config.io, dir, removed);
  return removed;
}

function damageKept(active: Segment, scan: ScanResult, resumeOffset: number): ChainFinding {
  return {
    segment: active.logPath,
    kind: 'damaged-end',
    positionBytes: scan.endPositionBytes,
    sizeBytes: 0,
    message:
      `${path.basename(active.logPath)}: offsets ${scan.nextOffset} to ${resumeOffset - 1} are damaged ` +
      `(${scan.problem}, position ${scan.endPositionBytes}) and good records follow: kept, not cut, ` +
      'since no trusted recovery point says they were never synced; reads of them report CORRUPT_RECORD',
  };
}

/** A writable log must be able to store its next offset exactly (units.ts). */
function checkOffsetLimit(dir: string, config: LogConfig, nextOffset: number): void {
  if (config.readOnly || nextOffset <= MAX_END_OFFSET_WRITABLE) return;
  throw new StorageError(
    'OFFSET_LIMIT',
    `the log in ${dir} ends at offset ${nextOffset}, past ${MAX_END_OFFSET_WRITABLE}, the largest next ` +
      'offset this log can store exactly; it can no longer be appended to. Open it read-only ' +
      '(`loglab read`, `Log.open(dir, { readOnly: true })`) to read it',
    { file: dir, fromOffset: nextOffset },
  );
}

function persistRecovery(
  dir: string,
  config: LogConfig,
  toSync: readonly Segment[],
  active: Segment,
): RecoveryPoint {
  for (const segment of toSync) segment.sync();
  config.io.fsyncDir(dir);
  return savePointAtEnd(dir, config, active);
}

/** Saves, and returns, a recovery point at the end of `active` (a new log's: at its start). */
function savePointAtEnd(dir: string, config: LogConfig, active: Segment): RecoveryPoint {
  const point = {
    segmentBaseOffset: active.baseOffset,
    positionBytes: active.sizeBytes,
    nextOffset: active.nextOffset,
    sealing: sealingUnder(config.durability),
  };
  writeRecoveryPoint(config.io, dir, point);
  return point;
}
