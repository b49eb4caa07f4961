/**
 * What goes into a batched log and comes out of it (batched-log.ts): records as a caller gives
 * them, made into a batch's input; records, batches and their places as reads return them.
 */
import { assert } from '../errors.js';
import {
  type KafkaBatch,
  type KafkaBatchInput,
  type KafkaCompression,
  type KafkaHeader,
  type KafkaRecord,
  recordTimestampMs,
} from './kafka-batch.js';
import { type Offset, asOffset } from '../units.js';

export interface BatchedRecordInput {
  readonly value: Uint8Array | null;
  readonly key?: Uint8Array | null;
  readonly headers?: readonly KafkaHeader[];
  /** Create time, whole ms since the epoch; default: the log's clock at the append. */
  readonly timestampMs?: number;
}

export interface AppendBatchOptions {
  readonly compression?: KafkaCompression;
}

/** Where a batch lies and what it holds. */
export interface BatchLocation {
  readonly segmentBaseOffset: number;
  readonly positionBytes: number;
  readonly sizeBytes: number;
  readonly baseOffset: Offset;
  readonly lastOffset: Offset;
}

export interface BatchedLogRecord {
  readonly offset: Offset;
  readonly timestampMs: number;
  readonly key: Uint8Array | null;
  readonly value: Uint8Array | null;
  readonly headers: readonly KafkaHeader[];
  readonly batch: BatchLocation & { readonly compression: KafkaCompression };
}

export interface IndexEntry {
  readonly relativeOffset: number;
  readonly positionBytes: number;
}

/** Where a lookup started and what it read to reach its batch. */
export interface BatchWalk {
  /** The index entry the walk started from; null: from position 0. */
  readonly indexEntry: IndexEntry | null;
  /** Batch headers read (61 bytes each), the target batch's included. */
  readonly headersRead: number;
  /** Bytes read: the headers and the whole target batch. */
  readonly bytesRead: number;
}

export interface BatchedLookup {
  readonly record: BatchedLogRecord;
  /** How the lookup reached the batch: index entry, headers stepped, bytes read. */
  readonly walk: BatchWalk & { readonly segmentBaseOffset: number };
}

export interface StoredBatch {
  readonly batch: KafkaBatch;
  readonly location: BatchLocation;
}

const NO_HEADERS: readonly KafkaHeader[] = [];

export function batchInput(
  records: readonly BatchedRecordInput[],
  options: AppendBatchOptions,
  nowMs: () => number,
): KafkaBatchInput {
  const defaultMs = Math.floor(nowMs());
  const baseTimestampMs = records[0]!.timestampMs ?? defaultMs;
  const encoded = records.map((record, i): KafkaRecord => {
    const timestampMs = record.timestampMs ?? defaultMs;
    assert(Number.isSafeInteger(timestampMs), `timestamps are whole ms: ${timestampMs}`);
    return {
      timestampDeltaMs: timestampMs - baseTimestampMs,
      offsetDelta: i,
      key: record.key ?? null,
      value: record.value,
      headers: record.headers ?? NO_HEADERS,
    };
  });
  return {
    baseOffset: 0n,
    compression: options.compression ?? 'none',
    baseTimestampMs,
    records: encoded,
  };
}

export function recordAt(batch: KafkaBatch, offset: number): KafkaRecord | null {
  const delta = offset - Number(batch.baseOffset);
  const guess = batch.records[delta];
  if (guess?.offsetDelta === delta) return guess;
  return batch.records.find((record) => record.offsetDelta === delta) ?? null;
}

export function locationOf(
  segmentBaseOffset: number,
  positionBytes: number,
  batch: KafkaBatch,
): BatchLocation {
  const baseOffset = Number(batch.baseOffset);
  return {
    segmentBaseOffset,
    positionBytes,
    sizeBytes: batch.sizeBytes,
    baseOffset: asOffset(baseOffset),
    lastOffset: asOffset(baseOffset + batch.lastOffsetDelta),
  };
}

export function recordOf(
  batch: KafkaBatch,
  record: KafkaRecord,
  location: BatchLocation,
): BatchedLogRecord {
  return {
    offset: asOffset(Number(batch.baseOffset) + record.offsetDelta),
    timestampMs: recordTimestampMs(batch, record),
    key: record.key,
    value: record.value,
    headers: record.headers ?? [],
    batch: { ...location, compression: batch.compression },
  };
}

export interface BatchedSegmentInfo {
  readonly baseOffset: number;
  readonly logPath: string;
  readonly sizeBytes: number;
  readonly indexEntries: number;
  readonly timeIndexEntries: number;
}
