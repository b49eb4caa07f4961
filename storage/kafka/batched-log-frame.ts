/**
 * A Kafka v2 batch as a segment walk sees it: the frame, read from the fixed 61-byte header
 * alone, without the records and without the CRC. Kafka's FileLogInputStream steps through a
 * segment the same way; the CRC is checked only where the whole batch is read anyway (the batch
 * that holds a lookup's target, a recovery scan), by kafka-batch.ts's decodeBatchHeader.
 *
 *   byte 0         8         12     16    17                23          35         57     61
 *        | baseOffset | batchLength | epoch | magic | ... | lastOffsetDelta | ... | maxTimestamp |
 *        |    i64     |     i32     |  i32  |  i8   |     |  i32 (at 23)    |     | i64 (at 35)  |
 *        ... recordCount i32 at 57
 *
 * The frame is what the batched log needs of a batch and what a frame format must say: its size
 * (12 + batchLength), its first and last offset (baseOffset + lastOffsetDelta), its max
 * timestamp (for the time index), its record count. Offsets are numbers, exact up to 2^53 - 1;
 * a batch whose offsets go past that is refused here, as loglab's own log refuses them.
 */
import { BATCH_HEADER_BYTES, BATCH_LOG_OVERHEAD_BYTES, KAFKA_MAGIC_V2 } from './kafka-batch.js';
import { StorageError } from '../errors.js';

const BATCH_LENGTH_AT = 8;
const MAGIC_AT = 16;
const LAST_OFFSET_DELTA_AT = 23;
const MAX_TIMESTAMP_AT = 35;
const RECORD_COUNT_AT = 57;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

export interface BatchFrame {
  readonly baseOffset: number;
  readonly lastOffset: number;
  /** The whole batch on disk: 12 + batchLength. */
  readonly sizeBytes: number;
  /** -1 (Kafka's NO_TIMESTAMP) when the producer set none. */
  readonly maxTimestampMs: number;
  readonly recordCount: number;
}

/**
 * The frame of the batch whose header starts at `bytes[at]`, or why these bytes are not one:
 * a short header, another magic, a length outside [61, maxBatchBytes], offsets that go
 * backwards or past 2^53 - 1. A frame that parses can still fail its CRC.
 */
export function readBatchFrame(
  bytes: Buffer,
  at: number,
  maxBatchBytes: number,
): BatchFrame | string {
  if (bytes.length - at < BATCH_HEADER_BYTES) return 'truncated header';
  const magic = bytes.readInt8(at + MAGIC_AT);
  if (magic !== KAFKA_MAGIC_V2) return `magic ${magic}, not 2`;
  const sizeBytes = BATCH_LOG_OVERHEAD_BYTES + bytes.readInt32BE(at + BATCH_LENGTH_AT);
  if (sizeBytes < BATCH_HEADER_BYTES || sizeBytes > maxBatchBytes) {
    return `batch size ${sizeBytes} outside [${BATCH_HEADER_BYTES}, ${maxBatchBytes}]`;
  }
  const base = bytes.readBigInt64BE(at);
  const lastOffsetDelta = bytes.readInt32BE(at + LAST_OFFSET_DELTA_AT);
  if (base < 0n || lastOffsetDelta < 0 || base + BigInt(lastOffsetDelta) > MAX_SAFE) {
    return `offsets ${base} + ${lastOffsetDelta} outside [0, 2^53 - 1]`;
  }
  const maxTimestamp = bytes.readBigInt64BE(at + MAX_TIMESTAMP_AT);
  if (maxTimestamp > MAX_SAFE || maxTimestamp < -MAX_SAFE) return `max timestamp ${maxTimestamp}`;
  const recordCount = bytes.readInt32BE(at + RECORD_COUNT_AT);
  if (recordCount < 0) return `record count ${recordCount}`;
  const baseOffset = Number(base);
  return {
    baseOffset,
    lastOffset: baseOffset + lastOffsetDelta,
    sizeBytes,
    maxTimestampMs: Number(maxTimestamp),
    recordCount,
  };
}

/** Writes the offset the log assigns: outside the CRC, as Kafka's broker relies on. */
export function assignBaseOffset(batch: Buffer, baseOffset: number): void {
  batch.writeBigInt64BE(BigInt(baseOffset), 0);
}

/** CORRUPT_BATCH for a batch of a segment file: where, why, and what to do. */
export function corruptBatchAt(file: string, positionBytes: number, reason: string): StorageError {
  return new StorageError(
    'CORRUPT_BATCH',
    `batched log: the batch at byte ${positionBytes} of ${file} is damaged (${reason}); restore ` +
      'the segment from a replica or a backup, or move the segment and those after it away ' +
      'to serve only the offsets before it',
    { file, positionBytes, reason },
  );
}
