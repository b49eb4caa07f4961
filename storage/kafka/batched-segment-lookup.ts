/**
 * Lookups in one batched-log segment (batched-log-segment.ts), as Kafka makes them: the offset
 * index's largest entry at or below the target, then batch by batch reading only the 61-byte
 * headers (batched-log-frame.ts) to the batch that holds it, and that one batch alone read,
 * checked (CRC) and decompressed. An entry that does not land on a batch at or below its offset
 * is not trusted: the walk starts again at position 0.
 */
import { type BatchFrame, corruptBatchAt } from './batched-log-frame.js';
import type { BatchedSegment } from './batched-log-segment.js';
import { largestLowerBoundSlot } from '../segments/index-file.js';
import {
  BATCH_HEADER_BYTES,
  type KafkaBatch,
  type KafkaRecord,
  recordTimestampMs,
} from './kafka-batch.js';
import type { OffsetIndex } from '../segments/offset-index.js';
import type { BatchWalk, IndexEntry } from './batched-log-records.js';

export interface FoundBatch {
  readonly frame: BatchFrame;
  readonly positionBytes: number;
  readonly walk: BatchWalk;
}

/** The first record at or after a time, with its batch and where that lies. */
export interface TimeHit {
  readonly batch: KafkaBatch;
  readonly record: KafkaRecord;
  readonly found: FoundBatch;
}

/**
 * The batch holding `offset` (the first whose last offset reaches it): from the index entry at
 * or below it, headers only. Null when the segment ends first. A damaged header on the way is
 * CORRUPT_BATCH.
 */
export function findBatch(segment: BatchedSegment, offset: number): FoundBatch | null {
  const entry = landedEntryAtOrBelow(segment, offset);
  return stepTo(segment, entry, (frame) => frame.lastOffset >= offset);
}

/**
 * Kafka's findOffsetByTimestamp: the time index's largest entry at or below the time names an
 * offset; the walk starts at that offset's index entry and decodes the first batch whose max
 * timestamp reaches the time, returning its first record at or after it.
 */
export function findByTime(segment: BatchedSegment, timestampMs: number): TimeHit | null {
  const timeIndex = segment.timeIndex();
  const timeAt = (slot: number): number => timeIndex.timestampMsAt(slot);
  const slot = largestLowerBoundSlot(timeAt, timeIndex.entries, timestampMs);
  const fromOffset = segment.baseOffset + (slot < 0 ? 0 : timeIndex.relativeOffsetAt(slot));
  const start = landedEntryAtOrBelow(segment, fromOffset);
  let from = start?.positionBytes ?? 0;
  for (;;) {
    const found = stepTo(segment, start, (frame) => frame.maxTimestampMs >= timestampMs, from);
    if (found === null) return null;
    const batch = segment.readBatch(found);
    const record = batch.records.find((r) => recordTimestampMs(batch, r) >= timestampMs);
    if (record !== undefined) return { batch, record, found };
    // The header's max timestamp promised more than the records hold: go on past it.
    from = found.positionBytes + found.frame.sizeBytes;
  }
}

/** Decoded batches from `positionBytes` to the end, in order. */
export function* batchesOf(
  segment: BatchedSegment,
  positionBytes: number,
): Generator<{ batch: KafkaBatch; positionBytes: number }> {
  let position = positionBytes;
  while (position < segment.sizeBytes) {
    const frame = segment.frameAt(position);
    if (typeof frame === 'string') throw corruptBatchAt(segment.logPath, position, frame);
    yield { batch: segment.readBatch({ frame, positionBytes: position }), positionBytes: position };
    position += frame.sizeBytes;
  }
}

/** The offset index's entry at or below `offset` when it lands on its batch; else null. */
function landedEntryAtOrBelow(segment: BatchedSegment, offset: number): IndexEntry | null {
  const index = segment.offsetIndex();
  const slot = index.largestLowerBoundSlotFor(offset - segment.baseOffset);
  if (slot < 0) return null;
  const entry = entryAt(index, slot);
  const frame = segment.frameAt(entry.positionBytes);
  const lands =
    typeof frame !== 'string' && frame.baseOffset <= segment.baseOffset + entry.relativeOffset;
  return lands ? entry : null;
}

function entryAt(index: OffsetIndex, slot: number): IndexEntry {
  return { relativeOffset: index.relativeOffsetAt(slot), positionBytes: index.positionAt(slot) };
}

/**
 * Steps header by header from `fromPosition` (the entry's, else 0) to the first batch `wanted`
 * says yes to.
 */
function stepTo(
  segment: BatchedSegment,
  entry: IndexEntry | null,
  wanted: (frame: BatchFrame) => boolean,
  fromPosition = entry?.positionBytes ?? 0,
): FoundBatch | null {
  let position = fromPosition;
  let previousLast = -1;
  let headersRead = 0;
  while (position < segment.sizeBytes) {
    const frame = segment.frameAt(position);
    headersRead++;
    if (typeof frame === 'string') throw corruptBatchAt(segment.logPath, position, frame);
    if (frame.baseOffset <= previousLast) {
      const reason = `base offset ${frame.baseOffset} after a batch ending at ${previousLast}`;
      throw corruptBatchAt(segment.logPath, position, reason);
    }
    if (wanted(frame)) {
      const bytesRead = (headersRead - 1) * BATCH_HEADER_BYTES + frame.sizeBytes;
      const walk = { indexEntry: entry, headersRead, bytesRead };
      return { frame, positionBytes: position, walk };
    }
    previousLast = frame.lastOffset;
    position += frame.sizeBytes;
  }
  return null;
}
