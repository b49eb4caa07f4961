/**
 * How a batched log's reads find records in its segments (batched-log.ts): by offset as Kafka
 * does, batch by batch from an offset, and by time. The log picks the segment and checks that
 * it is open; these walk from there.
 */
import type { BatchedSegment } from './batched-log-segment.js';
import { batchesOf, findBatch, findByTime } from './batched-segment-lookup.js';
import {
  type BatchedLogRecord,
  type BatchedSegmentInfo,
  type BatchedLookup,
  type StoredBatch,
  locationOf,
  recordAt,
  recordOf,
} from './batched-log-records.js';
import { StorageError } from '../errors.js';

/**
 * Finds `offset` in `segment` as Kafka does: the offset index's entry at or below it, batch
 * headers stepped to its batch, that batch alone read, checked and decompressed.
 */
export function lookupIn(segment: BatchedSegment, offset: number): BatchedLookup {
  const found = findBatch(segment, offset);
  if (found === null) throw noRecord(offset, 'past the data of its segment');
  const batch = segment.readBatch(found);
  const record = recordAt(batch, offset);
  if (record === null) throw noRecord(offset, `not in batch ${batch.baseOffset}`);
  const location = locationOf(segment.baseOffset, found.positionBytes, batch);
  return {
    record: recordOf(batch, record, location),
    walk: { ...found.walk, segmentBaseOffset: segment.baseOffset },
  };
}

function noRecord(offset: number, why: string): StorageError {
  return new StorageError(
    'OFFSET_OUT_OF_RANGE',
    `batched log: no record with offset ${offset} (${why}; a compacted Kafka log skips ` +
      'offsets); read the next offset',
    { offset: BigInt(offset) },
  );
}

/** Decoded batches from the one holding `fromOffset` (in `segments[firstSlot]`) to the end. */
export function* batchesFrom(
  segments: readonly BatchedSegment[],
  firstSlot: number,
  fromOffset: number,
): Generator<StoredBatch> {
  for (let i = firstSlot; i < segments.length; i++) {
    const segment = segments[i]!;
    const from = i === firstSlot ? findBatch(segment, fromOffset)?.positionBytes : 0;
    if (from === undefined) continue;
    for (const { batch, positionBytes } of batchesOf(segment, from)) {
      yield { batch, location: locationOf(segment.baseOffset, positionBytes, batch) };
    }
  }
}

/** The records of `batches` from `fromOffset` on, in offset order. */
export function* recordsFrom(
  batches: Iterable<StoredBatch>,
  fromOffset: number,
): Generator<BatchedLogRecord> {
  for (const { batch, location } of batches) {
    const base = Number(batch.baseOffset);
    const compressed = { ...location, compression: batch.compression };
    for (const record of batch.records) {
      if (base + record.offsetDelta >= fromOffset) yield recordOf(batch, record, compressed);
    }
  }
}

/** The first record whose timestamp is at or after `timestampMs` (Kafka's ListOffsets). */
export function recordAtTime(
  segments: readonly BatchedSegment[],
  timestampMs: number,
): BatchedLogRecord | null {
  for (const segment of segments) {
    const hit = findByTime(segment, timestampMs);
    if (hit === null) continue;
    const location = locationOf(segment.baseOffset, hit.found.positionBytes, hit.batch);
    return recordOf(hit.batch, hit.record, location);
  }
  return null;
}

/** A segment's files and index sizes, as `BatchedLog.segments` lists them. */
export function segmentInfoOf(segment: BatchedSegment): BatchedSegmentInfo {
  return {
    baseOffset: segment.baseOffset,
    logPath: segment.logPath,
    sizeBytes: segment.sizeBytes,
    indexEntries: segment.offsetIndex().entries,
    timeIndexEntries: segment.timeIndex().entries,
  };
}
