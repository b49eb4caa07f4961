/**
 * Opening a log recovers it (Kafka's LogLoader, lesson 3's "read from a known good point, find
 * where the damage starts, cut there").
 *
 * Segments before the recovery point are trusted: they were fdatasynced (with their indexes)
 * before the point was saved, and rolls sync a segment before starting the next. From the
 * recovery point on — or from the start of the last segment when there is no usable point — every
 * record is checked (length, CRC, expected id). The log is cut at the first record that fails,
 * later segments (whose offsets would no longer follow) are removed, index entries past the
 * checked start are re-derived from the log, and lost time-index entries get the open time.
 * If anything was scanned, the repaired state is synced and a new recovery point saved.
 */
import * as path from 'node:path';
import type { LogConfig } from './log-config.js';
import { SCAN_WINDOW_BYTES, LOG_SUFFIX, Segment, closeSegments, parseSegmentFileName, type ScanResult } from './segment.js';
import { ReadWindow } from './read-window.js';
import { settleRecordLimit } from './record-limit.js';
import { readRecoveryPoint, writeRecoveryPoint, type RecoveryPoint } from './recovery-point.js';
import { RECORD_HEADER_BYTES, frameSizeAt } from './record.js';
import { mkdirpDurable } from './durable-dir.js';
import { endOfNonZeroBytes } from './resync.js';

export interface TruncationReport {
  readonly segment: string;
  readonly positionBytes: number;
  /** Bytes cut up to the last non-zero byte: data that was written but is not a whole record. */
  readonly discardedBytes: number;
  /** Zero bytes after that: preallocated or zero-filled space, nothing that was ever data. */
  readonly zeroTailBytes: number;
  /** Record-shaped frames in the discarded bytes (a torn last record counts as one). */
  readonly discardedRecords: number;
  readonly reason: string;
}

export interface RecoveryReport {
  /** How the scan started: nothing to scan, from the saved point, or a whole segment. */
  readonly startedFrom: 'new-log' | 'recovery-point' | 'segment-start';
  /** Why the saved recovery point was not used, when it was not. */
  readonly recoveryPointProblem: string | null;
  readonly scannedSegments: number;
  readonly scannedBytes: number;
  readonly scannedRecords: number;
  readonly truncation: TruncationReport | null;
  readonly removedSegments: readonly string[];
  readonly removedBytes: number;
  readonly indexEntriesRebuilt: number;
  readonly timeIndexEntriesAdded: number;
}

export interface LoadedLog {
  readonly segments: Segment[];
  readonly report: RecoveryReport;
  /** What segments were opened with: the log's stored record limit (record-limit.ts) for reading. */
  readonly segmentConfig: LogConfig;
}

interface ScanStart {
  readonly segmentSlot: number;
  readonly positionBytes: number;
  readonly expectedOffset: number;
  readonly startedFrom: RecoveryReport['startedFrom'];
  readonly problem: string | null;
}

export function loadLog(dir: string, configured: LogConfig): LoadedLog {
  const { io } = configured;
  mkdirpDurable(io, dir);
  const recordLimitBytes = settleRecordLimit(io, dir, configured.maxRecordBytes);
  const config = recordLimitBytes === configured.maxRecordBytes ? configured : { ...configured, maxRecordBytes: recordLimitBytes };
  const baseOffsets = listSegmentBaseOffsets(dir, config);
  if (baseOffsets.length === 0) return { ...newLog(dir, config), segmentConfig: config };
  const segments: Segment[] = [];
  try {
    for (const base of baseOffsets) segments.push(Segment.existing(io, dir, base, config));
    const start = chooseScanStart(segments, readRecoveryPoint(io, dir));
    return { ...recoverFrom(dir, config, segments, start), segmentConfig: config };
  } catch (error) {
    // An open that fails part-way (EMFILE at the 500th segment) must not leak the 499 before.
    for (const segment of segments) segment.abandon();
    throw error;
  }
}

function listSegmentBaseOffsets(dir: string, config: LogConfig): number[] {
  const bases: number[] = [];
  for (const name of config.io.list(dir)) {
    const parsed = parseSegmentFileName(dir, name);
    if (parsed !== null && parsed.suffix === LOG_SUFFIX) bases.push(parsed.baseOffset);
  }
  return bases.sort((a, b) => a - b);
}

function newLog(dir: string, config: LogConfig): Omit<LoadedLog, 'segmentConfig'> {
  const segment = Segment.create(config.io, dir, config.baseOffset, config);
  try {
    writeRecoveryPoint(config.io, dir, { segmentBaseOffset: config.baseOffset, positionBytes: 0, nextOffset: config.baseOffset });
  } catch (error) {
    segment.abandon();
    throw error;
  }
  return {
    segments: [segment],
    report: {
      startedFrom: 'new-log',
      recoveryPointProblem: null,
      scannedSegments: 0,
      scannedBytes: 0,
      scannedRecords: 0,
      truncation: null,
      removedSegments: [],
      removedBytes: 0,
      indexEntriesRebuilt: 0,
      timeIndexEntriesAdded: 0,
    },
  };
}

function chooseScanStart(segments: Segment[], point: RecoveryPoint | { unreadable: string } | null): ScanStart {
  const lastSlot = segments.length - 1;
  const fromSegment = (segmentSlot: number, problem: string): ScanStart => ({
    segmentSlot,
    positionBytes: 0,
    expectedOffset: segments[segmentSlot]!.baseOffset,
    startedFrom: 'segment-start',
    problem,
  });
  const fromLastSegment = (problem: string): ScanStart => fromSegment(lastSlot, problem);
  if (point === null) return fromLastSegment('no recovery point was saved');
  if ('unreadable' in point) return fromLastSegment(`the recovery point is unreadable (${point.unreadable})`);
  const slot = segments.findIndex((segment) => segment.baseOffset === point.segmentBaseOffset);
  if (slot < 0) {
    // Retention removed the point's segment. Every later one was written after the point and may
    // not be synced (rolls under `none` do not sync): all of them are checked, not just the last.
    const after = segments.findIndex((segment) => segment.baseOffset > point.segmentBaseOffset);
    const missing = `the recovery point names segment ${point.segmentBaseOffset}, which is missing`;
    return fromSegment(after < 0 ? lastSlot : after, missing);
  }
  if (point.positionBytes > segments[slot]!.sizeBytes) {
    return fromLastSegment(`the recovery point is past the end of segment ${point.segmentBaseOffset}`);
  }
  const atStart = point.positionBytes === 0;
  if (atStart ? point.nextOffset !== point.segmentBaseOffset : point.nextOffset <= point.segmentBaseOffset) {
    return fromLastSegment(`the recovery point's next offset ${point.nextOffset} cannot be at position ${point.positionBytes} of segment ${point.segmentBaseOffset}`);
  }
  return {
    segmentSlot: slot,
    positionBytes: point.positionBytes,
    expectedOffset: point.nextOffset,
    startedFrom: 'recovery-point',
    problem: null,
  };
}

function recoverFrom(dir: string, config: LogConfig, segments: Segment[], start: ScanStart): Omit<LoadedLog, 'segmentConfig'> {
  const window = new ReadWindow(config.io, SCAN_WINDOW_BYTES);
  const counts = { scannedSegments: 0, scannedBytes: 0, scannedRecords: 0, indexEntriesRebuilt: 0, timeIndexEntriesAdded: 0 };
  let truncation: TruncationReport | null = null;
  const scanned: Segment[] = [];
  let slot = start.segmentSlot;
  let position = start.positionBytes;
  let expected = start.expectedOffset;
  for (; slot < segments.length; slot++) {
    const segment = segments[slot]!;
    if (segment.baseOffset !== expected && position === 0) {
      truncation = gapTruncation(segments[slot - 1] ?? segment, expected, segment.baseOffset);
      break;
    }
    const scan = scanSegment(segment, window, position, expected, counts);
    scanned.push(segment);
    if (scan.problem !== null) truncation = truncateAt(segment, window, scan, config.maxRecordBytes);
    segment.activate(scan.endPositionBytes, scan.nextOffset);
    if (scan.problem !== null) {
      slot++;
      break;
    }
    expected = scan.nextOffset;
    position = 0;
  }
  const removed = segments.splice(slot);
  const failures = closeSegments(removed, 'delete');
  if (failures.length > 0) throw failures[0];
  const active = segments[segments.length - 1]!;
  // Without a usable recovery point nothing vouches for the segments before the scan, and under
  // `none` no roll will save one: they are synced and a point saved now, or after a power cut
  // recovery would trust segments that may never have reached the device.
  const unvouched = start.problem !== null;
  const changed = unvouched || counts.scannedBytes > 0 || truncation !== null || removed.length > 0;
  const toSync = unvouched ? segments : scanned.filter((segment) => !removed.includes(segment));
  if (changed) persistRecovery(dir, config, toSync, active);
  for (const segment of scanned) if (segment !== active && !removed.includes(segment)) segment.seal();
  return {
    segments,
    report: {
      startedFrom: start.startedFrom,
      recoveryPointProblem: start.problem,
      ...counts,
      truncation,
      removedSegments: removed.map((segment) => segment.logPath),
      removedBytes: removed.reduce((sum, segment) => sum + segment.sizeBytes, 0),
    },
  };
}

function scanSegment(
  segment: Segment,
  window: ReadWindow,
  fromPosition: number,
  expectedOffset: number,
  counts: { scannedSegments: number; scannedBytes: number; scannedRecords: number; indexEntriesRebuilt: number; timeIndexEntriesAdded: number },
): ScanResult {
  segment.loadIndexesForRecovery(fromPosition);
  let entriesBefore = segment.offsetIndex().entries;
  let timeEntriesBefore = segment.timeIndex().entries;
  let scan = segment.scan(window, fromPosition, expectedOffset, { reindex: true });
  if (scan.problem === 'unexpected id' && scan.records === 0 && fromPosition > 0) {
    // A sound record with another id where the saved point says the next one starts: the point
    // does not land on this segment's records, so nothing in it is trusted. Zeros, a torn record
    // or a bad checksum there are the normal end of a log that crashed after its last sync.
    segment.loadIndexesForRecovery(0);
    entriesBefore = segment.offsetIndex().entries;
    timeEntriesBefore = segment.timeIndex().entries;
    scan = segment.scan(window, 0, segment.baseOffset, { reindex: true });
    fromPosition = 0;
  }
  counts.scannedSegments++;
  counts.scannedBytes += scan.endPositionBytes - fromPosition;
  counts.scannedRecords += scan.records;
  counts.indexEntriesRebuilt += Math.max(0, segment.offsetIndex().entries - entriesBefore);
  counts.timeIndexEntriesAdded += Math.max(0, segment.timeIndex().entries - timeEntriesBefore);
  return scan;
}

function truncateAt(segment: Segment, window: ReadWindow, scan: ScanResult, maxRecordBytes: number): TruncationReport {
  window.bind(segment.handle);
  const dataEnd = endOfNonZeroBytes(window, scan.endPositionBytes, segment.sizeBytes);
  const discardedBytes = dataEnd - scan.endPositionBytes;
  const zeroTailBytes = segment.sizeBytes - dataEnd;
  const discardedRecords = discardedBytes === 0 ? 0 : countFrames(segment, window, scan.endPositionBytes, maxRecordBytes);
  segment.truncate(scan.endPositionBytes);
  return {
    segment: segment.logPath,
    positionBytes: scan.endPositionBytes,
    discardedBytes,
    zeroTailBytes,
    discardedRecords,
    reason: scan.problem ?? 'unknown',
  };
}

/** Frames that look like records (a plausible length) from `from` to the end of the file. */
function countFrames(segment: Segment, window: ReadWindow, from: number, maxRecordBytes: number): number {
  let frames = 0;
  let position = from;
  window.bind(segment.handle);
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

function gapTruncation(previous: Segment, expectedOffset: number, foundOffset: number): TruncationReport {
  return {
    segment: previous.logPath,
    positionBytes: previous.sizeBytes,
    discardedBytes: 0,
    zeroTailBytes: 0,
    discardedRecords: 0,
    reason: `the next segment starts at offset ${foundOffset}, but the log ends at ${expectedOffset}`,
  };
}

function persistRecovery(dir: string, config: LogConfig, scanned: Segment[], active: Segment): void {
  for (const segment of scanned) segment.sync();
  config.io.fsyncDir(dir);
  writeRecoveryPoint(config.io, dir, {
    segmentBaseOffset: active.baseOffset,
    positionBytes: active.sizeBytes,
    nextOffset: active.nextOffset,
  });
}

export function describeRecovery(report: RecoveryReport): string {
  if (report.startedFrom === 'new-log') return 'new log created';
  const lines = [`recovered: scanned ${report.scannedRecords} records (${report.scannedBytes} bytes) in ${report.scannedSegments} segment(s) from the ${report.startedFrom}`];
  if (report.recoveryPointProblem !== null) lines.push(`recovery point not used: ${report.recoveryPointProblem}`);
  const cut = report.truncation;
  if (cut !== null) {
    lines.push(
      `cut ${path.basename(cut.segment)} at position ${cut.positionBytes}: ${cut.discardedBytes} bytes, ` +
        `${cut.discardedRecords} record(s) discarded (${cut.reason}), then ${cut.zeroTailBytes} zero bytes`,
    );
  }
  if (report.removedSegments.length > 0) {
    lines.push(`removed ${report.removedSegments.length} later segment(s), ${report.removedBytes} bytes`);
  }
  if (report.indexEntriesRebuilt > 0) lines.push(`rebuilt ${report.indexEntriesRebuilt} index entries`);
  return lines.join('\n');
}
