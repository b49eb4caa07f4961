/**
 * Options of the batched log, their defaults (Kafka's, where Kafka has one) and their limits.
 * Positions and relative offsets are int32 in Kafka's index files, so a segment stays below
 * 2 GiB (Kafka's segment.bytes limit) and a batch whose last offset would be 2^31 or more past
 * the segment's base starts a new segment (Kafka's LogSegmentOffsetOverflowException rule).
 */
import { checkInteger } from '../config-checks.js';
import {
  DEFAULT_DURABILITY,
  DEFAULT_SYNC_MODE,
  type DurabilityPolicy,
  type SyncMode,
  parseDurabilityPolicy,
  parseSyncMode,
  resolveGroupCommitOptions,
} from '../io/durability.js';
import type { FileIO } from '../io/file-io.js';
import { NodeFileIO } from '../io/node-file-io.js';
import { DEFAULT_DECOMPRESSION_FACTOR, DEFAULT_MAX_BATCH_BYTES } from './kafka-batch.js';
import { wallClockMs } from '../io/wall-clock.js';
import { GiB, MiB } from '../units.js';

/** Kafka's segment.bytes default (1 GiB) and limit (Int.MaxValue). */
export const DEFAULT_BATCHED_SEGMENT_BYTES = GiB;
export const MAX_BATCHED_SEGMENT_BYTES = 0x7fff_ffff;
/** Kafka's index.interval.bytes default. */
export const DEFAULT_BATCHED_INDEX_INTERVAL_BYTES = 4096;
/** Relative offsets are int32 in both index files. */
export const MAX_RELATIVE_OFFSET = 0x7fff_ffff;
const MIN_SEGMENT_BYTES = 1024;
const MIN_BATCH_BYTES = 61;
/** A recovery point every this many synced bytes bounds the scan after a crash. */
export const DEFAULT_BATCHED_RECOVERY_POINT_INTERVAL_BYTES = 16 * MiB;

export interface BatchedLogOptions {
  /** Offset of the first batch of a new log (ignored when the log exists). */
  readonly baseOffset?: number;
  readonly segmentBytes?: number;
  /** Kafka's index.interval.bytes: an entry once more than this was written since the last. */
  readonly indexIntervalBytes?: number;
  /** Kafka's message.max.bytes: the largest batch appended or read. */
  readonly maxBatchBytes?: number;
  /** When an append may be acknowledged (durability.ts); default `group`. */
  readonly durability?: DurabilityPolicy;
  readonly groupMaxDelayMs?: number;
  readonly groupMaxBytes?: number;
  /** Where the fdatasyncs of `always` and `group` run (durability.ts); default `thread-pool`. */
  readonly syncMode?: SyncMode;
  readonly recoveryPointIntervalBytes?: number;
  readonly io?: FileIO;
  /** The timestamp of records appended without one, ms since the epoch. */
  readonly nowMs?: () => number;
  /**
   * Read only: no lock, nothing created or changed; a torn tail is left in place, unread;
   * indexes rebuilt only in memory. For reading a Kafka partition directory.
   */
  readonly readOnly?: boolean;
}

export interface BatchedLogConfig {
  readonly baseOffset: number;
  readonly segmentBytes: number;
  readonly indexIntervalBytes: number;
  readonly maxBatchBytes: number;
  /**
   * Records of one batch may expand to this much before a read refuses them as a size bomb:
   * 32 times Kafka's message.max.bytes at least, however small the segments (an lz4 block is
   * bounded by its 64 KiB maximum, more than 32 times a 1 KiB test segment).
   */
  readonly maxDecompressedBytes: number;
  readonly durability: DurabilityPolicy;
  readonly groupMaxDelayMs: number;
  readonly groupMaxBytes: number;
  readonly syncMode: SyncMode;
  readonly recoveryPointIntervalBytes: number;
  readonly io: FileIO;
  readonly nowMs: () => number;
  readonly readOnly: boolean;
}

export function resolveBatchedLogConfig(options: BatchedLogOptions): BatchedLogConfig {
  const segmentBytes = checkInteger(
    'segmentBytes',
    options.segmentBytes ?? DEFAULT_BATCHED_SEGMENT_BYTES,
    MIN_SEGMENT_BYTES,
    MAX_BATCHED_SEGMENT_BYTES,
  );
  const group = resolveGroupCommitOptions(options.groupMaxDelayMs, options.groupMaxBytes);
  const maxBatchBytes = checkInteger(
    'maxBatchBytes',
    options.maxBatchBytes ?? Math.min(DEFAULT_MAX_BATCH_BYTES, segmentBytes),
    MIN_BATCH_BYTES,
    segmentBytes,
  );
  return {
    baseOffset: checkInteger('baseOffset', options.baseOffset ?? 0, 0, Number.MAX_SAFE_INTEGER - 1),
    segmentBytes,
    indexIntervalBytes: checkInteger(
      'indexIntervalBytes',
      options.indexIntervalBytes ?? DEFAULT_BATCHED_INDEX_INTERVAL_BYTES,
      0,
      segmentBytes,
    ),
    maxBatchBytes,
    maxDecompressedBytes:
      Math.max(maxBatchBytes, DEFAULT_MAX_BATCH_BYTES) * DEFAULT_DECOMPRESSION_FACTOR,
    durability: parseDurabilityPolicy(options.durability ?? DEFAULT_DURABILITY),
    groupMaxDelayMs: group.maxDelayMs,
    groupMaxBytes: group.maxBytes,
    syncMode: parseSyncMode(options.syncMode ?? DEFAULT_SYNC_MODE),
    recoveryPointIntervalBytes: checkInteger(
      'recoveryPointIntervalBytes',
      options.recoveryPointIntervalBytes ?? DEFAULT_BATCHED_RECOVERY_POINT_INTERVAL_BYTES,
      1,
      Number.MAX_SAFE_INTEGER,
    ),
    io: options.io ?? new NodeFileIO(),
    nowMs: options.nowMs ?? wallClockMs,
    readOnly: options.readOnly ?? false,
  };
}
