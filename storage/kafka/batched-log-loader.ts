/**
 * Opening a batched log: the chain of segments is checked, the tail is recovered (Kafka's
 * LogLoader and LogSegment.recover, with loglab's recovery point deciding where the tail starts).
 *
 * - Sealed segments (before the one the recovery point names) were synced, indexes included,
 *   before the next segment was created, so a crash cannot have damaged them. Each is walked
 *   from its last index entry to its end, every batch's CRC checked: a damaged batch there, a
 *   first batch whose offset is not the file name's, or offsets that skip or overlap between
 *   segments are refused with a typed error; nothing is deleted to make the chain whole.
 * - The tail (the point's segment and any after it) is scanned batch by batch from the last
 *   offset-index entry below the point whose batch checks out (or from the segment start), each
 *   batch's frame, CRC and offset checked, index entries re-derived by the rule. The first bad
 *   or partial batch ends the log: the file is cut there and later segments are removed, as
 *   Kafka does after its recovery point. Corruption is never served as data.
 * - With no usable point (a Kafka partition directory, a lost point file), the tail is the last
 *   segment and its scan starts at byte 0.
 * A read-only open runs the same checks and cuts nothing: the torn tail stays in the file,
 * unread, and index entries are re-derived in memory only.
 */
import * as path from 'node:path';
import { StorageError } from '../errors.js';
import { listSegmentBaseOffsets } from '../segments/segment-files.js';
import { withSegmentsOpened } from '../segments/segment-list.js';
import { checkDirectoryEntries } from '../io/directory-entries.js';
import { logFileUses } from '../segments/log-files.js';
import {
  readRecoveryPoint,
  writeRecoveryPoint,
  type RecoveryPoint,
} from '../segments/recovery-point.js';
import type { BatchedLogConfig } from './batched-log-config.js';
import {
  BatchedSegment,
  type BatchedSegmentConfig,
  type ScanOutcome,
} from './batched-log-segment.js';
import { corruptBatchAt } from './batched-log-frame.js';

export interface BatchedTruncation {
  readonly segment: string;
  readonly positionBytes: number;
  readonly discardedBytes: number;
  readonly reason: string;
}

export interface BatchedRecoveryReport {
  readonly startedFrom: 'new-log' | 'recovery-point' | 'segment-start';
  /** Bytes and batches of the tail checked batch by batch. */
  readonly scannedBytes: number;
  readonly scannedBatches: number;
  /** Offset-index entries below the point that were kept (their batch checked out). */
  readonly indexEntriesTrusted: number;
  /** Null when the tail was whole. Read-only: where the data was taken to end (nothing cut). */
  readonly truncation: BatchedTruncation | null;
  readonly removedSegments: readonly string[];
}

export interface LoadedBatchedLog {
  readonly segments: BatchedSegment[];
  readonly report: BatchedRecoveryReport;
}

export function segmentConfigOf(config: BatchedLogConfig): BatchedSegmentConfig {
  return {
    indexIntervalBytes: config.indexIntervalBytes,
    maxBatchBytes: config.maxBatchBytes,
    maxDecompressedBytes: config.maxDecompressedBytes,
    readOnly: config.readOnly,
  };
}

/** Opens (creating, checking, recovering) the batched log in `dir`. */
export function loadBatchedLog(dir: string, config: BatchedLogConfig): LoadedBatchedLog {
  const bases = listBaseOffsets(dir, config);
  if (bases.length === 0 && config.readOnly) throw logNotFound(dir);
  if (bases.length === 0) return newLog(dir, config);
  const segmentConfig = segmentConfigOf(config);
  const open = (base: number): BatchedSegment =>
    BatchedSegment.existing(config.io, dir, base, segmentConfig);
  return withSegmentsOpened(bases, open, (segments) => recover(dir, config, segments));
}

function listBaseOffsets(dir: string, config: BatchedLogConfig): number[] {
  if (!config.io.exists(dir)) return [];
  // Before anything is written (directory-entries.ts); the lock was taken safely already.
  checkDirectoryEntries(config.io, dir, (names) => logFileUses(dir, names), !config.readOnly);
  return listSegmentBaseOffsets(config.io, dir);
}

function newLog(dir: string, config: BatchedLogConfig): LoadedBatchedLog {
  const segment = BatchedSegment.create(config.io, dir, config.baseOffset, segmentConfigOf(config));
  try {
    config.io.fsyncDir(dir);
    const base = config.baseOffset;
    const point = { segmentBaseOffset: base, positionBytes: 0, nextOffset: base };
    writeRecoveryPoint(config.io, dir, point);
  } catch (error) {
    segment.abandon();
    throw error;
  }
  const report: BatchedRecoveryReport = {
    startedFrom: 'new-log',
    scannedBytes: 0,
    scannedBatches: 0,
    indexEntriesTrusted: 0,
    truncation: null,
    removedSegments: [],
  };
  return { segments: [segment], report };
}

/** The saved point when it names a segment and a position inside it; else null. */
function usablePoint(
  dir: string,
  config: BatchedLogConfig,
  segments: readonly BatchedSegment[],
): RecoveryPoint | null {
  const point = readRecoveryPoint(config.io, dir);
  if (point === null || 'unreadable' in point) return null;
  const segment = segments.find((s) => s.baseOffset === point.segmentBaseOffset);
  if (segment === undefined || point.positionBytes > segment.sizeBytes) return null;
  return point;
}

function recover(
  dir: string,
  config: BatchedLogConfig,
  segments: BatchedSegment[],
): LoadedBatchedLog {
  const point = usablePoint(dir, config, segments);
  const tailSlot =
    point === null
      ? segments.length - 1
      : segments.findIndex((s) => s.baseOffset === point.segmentBaseOffset);
  const contiguous = !config.readOnly;
  for (let slot = 0; slot < tailSlot; slot++) {
    checkSealed(segments[slot]!, segments[slot + 1]!, contiguous);
  }
  const report = recoverTail(dir, config, segments, tailSlot, point);
  if (!config.readOnly) {
    const active = segments[segments.length - 1]!;
    active.sync();
    writeRecoveryPoint(config.io, dir, {
      segmentBaseOffset: active.baseOffset,
      positionBytes: active.sizeBytes,
      nextOffset: active.nextOffset,
    });
  }
  return { segments, report };
}

/** Walks a sealed segment's last index interval to its end; refuses damage and broken chains. */
function checkSealed(segment: BatchedSegment, next: BatchedSegment, contiguous: boolean): void {
  const index = segment.offsetIndex();
  const last = index.entries - 1;
  let from = { positionBytes: 0, expectedOffset: segment.baseOffset };
  if (last >= 0) {
    const entryOffset = segment.baseOffset + index.relativeOffsetAt(last);
    const frame = segment.frameAt(index.positionAt(last));
    if (typeof frame !== 'string' && frame.baseOffset <= entryOffset) {
      from = { positionBytes: index.positionAt(last), expectedOffset: frame.baseOffset };
    }
  }
  const options = { reindex: false, contiguous };
  const outcome = segment.scan(from.positionBytes, from.expectedOffset, options);
  if (outcome.problem !== null) throw sealedDamaged(segment, outcome);
  segment.endAt(outcome.endPositionBytes, outcome.nextOffset);
  if (from.positionBytes > 0) checkFirstBatch(segment, contiguous);
  checkChain(segment, next.baseOffset, contiguous);
}

function checkFirstBatch(segment: BatchedSegment, contiguous: boolean): void {
  const frame = segment.frameAt(0);
  if (typeof frame === 'string') throw corruptBatchAt(segment.logPath, 0, frame);
  const named = contiguous
    ? frame.baseOffset === segment.baseOffset
    : frame.baseOffset >= segment.baseOffset;
  if (named) return;
  throw new StorageError(
    'SEGMENT_NAME_MISMATCH',
    `batched log: ${segment.logPath} starts with offset ${frame.baseOffset}, not the ` +
      `${segment.baseOffset} its name says; rename it to the offset of its first batch`,
    { file: segment.logPath, fromOffset: segment.baseOffset, toOffset: frame.baseOffset },
  );
}

/** The offsets of `segment` must run up to `nextBase`, the next segment's base offset. */
function checkChain(segment: BatchedSegment, nextBase: number, contiguous: boolean): void {
  const end = segment.nextOffset;
  if (end > nextBase) {
    throw new StorageError(
      'SEGMENT_OVERLAP',
      `batched log: ${segment.logPath} holds offsets up to ${end - 1}, past the next segment's ` +
        `base offset ${nextBase}; move the segment that should not be there out of the directory`,
      { file: segment.logPath, fromOffset: nextBase, toOffset: end - 1 },
    );
  }
  if (end < nextBase && contiguous) {
    throw new StorageError(
      'LOG_GAP',
      `batched log: offsets ${end} to ${nextBase - 1} are missing after ${segment.logPath}; ` +
        'put the missing segment back, or open read-only to read what is there',
      { file: segment.logPath, fromOffset: end, toOffset: nextBase - 1 },
    );
  }
}

function sealedDamaged(segment: BatchedSegment, outcome: ScanOutcome): StorageError {
  const reason =
    `sealed segment, synced before the next one began, so not a torn write: ` +
    `${outcome.problem ?? 'damaged'}`;
  return corruptBatchAt(segment.logPath, outcome.endPositionBytes, reason);
}

interface TailCounts {
  scannedBytes: number;
  scannedBatches: number;
  indexEntriesTrusted: number;
}

function recoverTail(
  dir: string,
  config: BatchedLogConfig,
  segments: BatchedSegment[],
  tailSlot: number,
  point: RecoveryPoint | null,
): BatchedRecoveryReport {
  const contiguous = !config.readOnly;
  const counts: TailCounts = { scannedBytes: 0, scannedBatches: 0, indexEntriesTrusted: 0 };
  let truncation: BatchedTruncation | null = null;
  let startedFrom: BatchedRecoveryReport['startedFrom'] = 'segment-start';
  for (let slot = tailSlot; slot < segments.length; slot++) {
    const segment = segments[slot]!;
    const trustedBelow = slot === tailSlot && point !== null ? point.positionBytes : 0;
    const start = segment.loadIndexesForRecovery(trustedBelow, contiguous);
    if (start.positionBytes > 0) startedFrom = 'recovery-point';
    counts.indexEntriesTrusted += start.indexEntries;
    const fileBytes = segment.sizeBytes;
    const options = { reindex: true, contiguous };
    const outcome = segment.scan(start.positionBytes, start.expectedOffset, options);
    counts.scannedBytes += outcome.endPositionBytes - start.positionBytes;
    counts.scannedBatches += outcome.batches;
    segment.endAt(outcome.endPositionBytes, outcome.nextOffset);
    segment.finishTimeIndex();
    if (outcome.problem !== null) {
      truncation = {
        segment: segment.logPath,
        positionBytes: outcome.endPositionBytes,
        discardedBytes: fileBytes - outcome.endPositionBytes,
        reason: outcome.problem,
      };
    }
    const next = segments[slot + 1];
    if (next === undefined) break;
    if (truncation !== null) {
      const removed = removeAfter(dir, config, segments, slot);
      return { startedFrom, ...counts, truncation, removedSegments: removed };
    }
    checkChain(segment, next.baseOffset, contiguous);
    if (!config.readOnly) segment.sync();
    segment.seal();
  }
  return { startedFrom, ...counts, truncation, removedSegments: [] };
}

/** Removes (read-only: only stops reading) the segments after `slot`, written after a cut. */
function removeAfter(
  dir: string,
  config: BatchedLogConfig,
  segments: BatchedSegment[],
  slot: number,
): string[] {
  const removed = segments.splice(slot + 1);
  for (const segment of removed) {
    if (config.readOnly) segment.close();
    else segment.delete();
  }
  if (!config.readOnly) config.io.fsyncDir(dir);
  return removed.map((segment) => path.basename(segment.logPath));
}

function logNotFound(dir: string): StorageError {
  return new StorageError(
    'LOG_NOT_FOUND',
    `batched log: no segments (<20 digits>.log) in ${dir}; check the path, or open it ` +
      'without readOnly to create a log there',
    { file: dir },
  );
}
