/**
 * The batched log: Kafka's way of storing records, beside loglab's own log. Records are
 * appended a batch at a time, each batch encoded once (kafka-batch.ts, compressed as one blob)
 * and written with one write; offsets are assigned by the log as a broker assigns them, by
 * writing the batch's baseOffset (outside the CRC). The directory is a Kafka partition
 * directory, readable by Kafka's tools and by this class (`readOnly`) alike:
 *
 *   topic-0/00000000000000000000.log         v2 batches back to back (batched-log-segment.ts)
 *   topic-0/00000000000000000000.index       (batch last offset - base i32, position i32)
 *   topic-0/00000000000000000000.timeindex   (max timestamp so far i64, its offset - base i32)
 *   topic-0/00000000000000000468.log         the next segment, named by its first offset
 *   topic-0/recovery-point                   loglab's: where the last sync left the log whole
 *   topic-0/.lock                            the writer lock (writer-lock.ts)
 *
 * Durability (durability.ts's policies, run by durability-engine.ts as for loglab's log):
 * `none` acknowledges a batch once written; `always` after an fdatasync of the log file per
 * batch; `group` after a shared fdatasync; the syncs run where `syncMode` says (durability.ts:
 * the default, `adaptive`, inline within the event loop's budget). Index entries are written behind, as in loglab's log, and synced at a roll, at
 * a recovery point and on close. A roll syncs the sealed segment under every policy before the
 * next segment is created. The segment list, its lookup by offset and its close are
 * segment-list.ts's, shared with loglab's log.
 *
 * After a failed write or sync the log is fenced (LOG_FENCED on every later append, as
 * log.ts explains): the active segment is cut back to what the failed call began with, or to
 * the last successful sync, and reopening recovers from the files.
 *
 * What records go in and come out as is batched-log-records.ts's, how reads walk the segments
 * batched-log-reads.ts's, the refusals batched-log-errors.ts's.
 */
import { assert } from '../errors.js';
import { DurabilityEngine, type FailedCall, type SyncPlan } from '../io/durability-engine.js';
import { encodeBatch } from './kafka-batch.js';
import { MAX_APPEND_OFFSET, MiB, type Offset, asOffset, asPosition } from '../units.js';
import { writeRecoveryPoint } from '../segments/recovery-point.js';
import { type WriterLock, openUnderWriterLock } from '../io/writer-lock.js';
import {
  type BatchedLogConfig,
  type BatchedLogOptions,
  MAX_RELATIVE_OFFSET,
  resolveBatchedLogConfig,
} from './batched-log-config.js';
import {
  type BatchedRecoveryReport,
  loadBatchedLog,
  segmentConfigOf,
} from './batched-log-loader.js';
import { BatchedSegment } from './batched-log-segment.js';
import { SegmentList, type SyncedPoint as ListSyncedPoint } from '../segments/segment-list.js';
import {
  batchTooLarge,
  closedError,
  offsetLimit,
  outOfRange,
  readOnlyError,
} from './batched-log-errors.js';
import {
  type AppendBatchOptions,
  type BatchLocation,
  type BatchedLogRecord,
  type BatchedLookup,
  type BatchedRecordInput,
  type StoredBatch,
  type BatchedSegmentInfo,
  batchInput,
} from './batched-log-records.js';
import {
  segmentInfoOf,
  batchesFrom,
  lookupIn,
  recordAtTime,
  recordsFrom,
} from './batched-log-reads.js';
import { type BatchFrame, assignBaseOffset, readBatchFrame } from './batched-log-frame.js';

type SyncedPoint = ListSyncedPoint<BatchedSegment>;

/** Lets a test damage a log's segments as a bug would (segmentsForTesting); nothing else. */
let segmentsOf: (log: BatchedLog) => readonly BatchedSegment[];

export class BatchedLog {
  static {
    segmentsOf = (log) => log.#segments.all;
  }

  readonly dir: string;
  readonly config: BatchedLogConfig;
  readonly recovery: BatchedRecoveryReport;
  readonly #segments: SegmentList<BatchedSegment>;
  readonly #lock: WriterLock | null;
  /** Owns the policy, the fence and the synced point. */
  readonly #engine: DurabilityEngine<SyncedPoint>;
  /** Appends write in the order they were called: each waits for the one before. */
  #writeTurn: Promise<unknown> = Promise.resolve();
  /** Appends called whose write has not run yet; at 0 the next waits for its encoding only. */
  #writesWaiting = 0;
  /**
   * Where an uncompressed batch is encoded when no other append waits to write, so it is
   * written before the scratch is used again (an append's write runs before the next can see
   * #writesWaiting at 0). Allocated at the first such append.
   */
  #scratch: Buffer | null = null;
  #bytesSincePoint = 0;
  /** Where the write in progress began: a failed write is cut back to here. */
  #writeStart: SyncedPoint | null = null;
  /** Set when close begins: appends called later are refused, earlier ones still written. */
  #closing = false;
  #closed = false;

  private constructor(
    dir: string,
    config: BatchedLogConfig,
    segments: BatchedSegment[],
    recovery: BatchedRecoveryReport,
    lock: WriterLock | null,
  ) {
    this.dir = dir;
    this.config = config;
    this.recovery = recovery;
    this.#segments = new SegmentList(segments);
    this.#lock = lock;
    this.#engine = new DurabilityEngine<SyncedPoint>(
      { ...config, subject: `the batched log in ${dir}`, fencedCode: 'LOG_FENCED' },
      this.#endOfActive(),
      this.#active().nextOffset,
    );
    this.#engine.attach({
      beforeSync: () => this.#beforeSync(),
      onFence: (call, synced) => this.#cutBack(call, synced),
      afterSync: () => this.#afterSync(),
    });
  }

  /** Opens (creating or recovering) the batched log in `dir`; see BatchedLogOptions.readOnly. */
  static open(dir: string, options: BatchedLogOptions = {}): BatchedLog {
    const config = resolveBatchedLogConfig(options);
    if (config.readOnly) {
      const loaded = loadBatchedLog(dir, config);
      return new BatchedLog(dir, config, loaded.segments, loaded.report, null);
    }
    return openUnderWriterLock(config.io, dir, `the batched log in ${dir}`, (lock) => {
      const loaded = loadBatchedLog(dir, config);
      return new BatchedLog(dir, config, loaded.segments, loaded.report, lock);
    });
  }

  #active(): BatchedSegment {
    return this.#segments.active;
  }

  get startOffset(): Offset {
    return asOffset(this.#segments.oldest.baseOffset);
  }

  /** The offset the next batch's first record gets. */
  get endOffset(): Offset {
    return asOffset(this.#active().nextOffset);
  }

  /**
   * Encodes the records as one batch and appends it; resolves with its place once the
   * durability policy allows acknowledging it. Batches are written in call order.
   */
  async appendBatch(
    records: readonly BatchedRecordInput[],
    options: AppendBatchOptions = {},
  ): Promise<BatchLocation> {
    this.#checkWritable();
    if (this.#closing) throw closedError(this.dir);
    assert(records.length > 0, 'a batch holds records');
    const input = batchInput(records, options, this.config.nowMs);
    const reuse = this.#writesWaiting === 0 && input.compression === 'none';
    const encoding = encodeBatch(input, reuse ? this.#scratchBuffer() : undefined);
    // With no earlier append waiting, its encoding alone stands before the write: one promise
    // hop less per append on the common path (one producer, awaiting each append).
    // Inline callbacks, not named ones: under tsx (esbuild's keepNames) each named closure made
    // costs an Object.defineProperty of its name, and the lab's benches run under tsx.
    const turn = (this.#writesWaiting === 0 ? encoding : this.#writeTurn.then(() => encoding)).then(
      (bytes) => {
        this.#writesWaiting--;
        return this.#write(bytes);
      },
      (error: unknown): never => {
        this.#writesWaiting--;
        throw error;
      },
    );
    this.#writesWaiting++;
    this.#writeTurn = turn.catch(() => undefined);
    const appended = await turn;
    // Under none the batch is acknowledged once written: no promise hop more per batch.
    if (this.#engine.syncsBeforeAcknowledging) await this.#engine.acknowledged(appended.lastOffset);
    return appended;
  }

  #scratchBuffer(): Buffer {
    this.#scratch ??= Buffer.allocUnsafe(Math.min(this.config.maxBatchBytes, SCRATCH_MAX_BYTES));
    return this.#scratch;
  }

  #write(batch: Buffer): BatchLocation {
    this.#checkWritable();
    if (batch.length > this.config.maxBatchBytes) throw batchTooLarge(batch.length, this.config);
    const baseOffset = this.endOffset;
    assignBaseOffset(batch, baseOffset);
    const frame = readBatchFrame(batch, 0, this.config.maxBatchBytes);
    assert(typeof frame !== 'string', 'an encoded batch has a frame');
    if (frame.lastOffset > MAX_APPEND_OFFSET) throw offsetLimit(frame);
    this.#rollIfFull(frame);
    const active = this.#active();
    // The active segment ends where this batch begins (baseOffset is its next offset).
    this.#writeStart = this.#endOfActive();
    const { positionBytes } = this.#writeStart;
    this.#engine.guard('write', () => active.append(batch, frame));
    this.#writeStart = null;
    this.#bytesSincePoint += batch.length;
    this.#engine.wrote(active.nextOffset, batch.length);
    return {
      segmentBaseOffset: active.baseOffset,
      positionBytes,
      sizeBytes: batch.length,
      baseOffset,
      lastOffset: asOffset(frame.lastOffset),
    };
  }

  /** A new segment when this batch would not fit, or its offsets not fit int32 from the base. */
  #rollIfFull(frame: BatchFrame): void {
    const active = this.#active();
    if (active.sizeBytes === 0) return;
    const full = active.sizeBytes + frame.sizeBytes > this.config.segmentBytes;
    const overflows = frame.lastOffset - active.baseOffset > MAX_RELATIVE_OFFSET;
    if (full || overflows) this.#roll();
  }

  #roll(): void {
    const sealed = this.#active();
    this.#engine.guard('sync', () => {
      sealed.finishTimeIndex();
      sealed.sync();
      this.#engine.vouch(this.#endOfActive(), sealed.nextOffset);
      sealed.seal();
      const next = BatchedSegment.create(
        this.config.io,
        this.dir,
        sealed.nextOffset,
        segmentConfigOf(this.config),
      );
      this.#segments.rolled(next);
      this.config.io.fsyncDir(this.dir);
      this.#savePoint();
    });
  }

  /** Batches are written at once: a sync started now covers the active segment to its end. */
  #beforeSync(): SyncPlan<SyncedPoint> {
    const point = this.#endOfActive();
    return { handle: point.segment.handle, point, endTicket: point.nextOffset };
  }

  /** After a sync of the engine's: a recovery point once enough bytes were synced since the last. */
  #afterSync(): void {
    if (this.#bytesSincePoint < this.config.recoveryPointIntervalBytes) return;
    try {
      this.#engine.guard('sync', () => {
        this.#active().sync();
        this.#savePoint();
      });
    } catch {
      // Fenced: the appends waiting learn it from the engine.
    }
  }

  /** The log and its indexes are synced up to the active segment's end: say so on disk. */
  #savePoint(): void {
    const point = this.#endOfActive();
    writeRecoveryPoint(this.config.io, this.dir, {
      segmentBaseOffset: point.segment.baseOffset,
      positionBytes: point.positionBytes,
      nextOffset: point.nextOffset,
    });
    this.#engine.vouch(point, point.nextOffset);
    this.#bytesSincePoint = 0;
  }

  #endOfActive(): SyncedPoint {
    const active = this.#active();
    return {
      segment: active,
      positionBytes: asPosition(active.sizeBytes),
      nextOffset: asOffset(active.nextOffset),
    };
  }

  /**
   * The engine fenced: the active segment is cut back to what it can vouch for (where a failed
   * write began, or the synced point) so nothing unsynced or half-written is served; reopening
   * recovers from the files.
   */
  #cutBack(call: FailedCall, synced: SyncedPoint): void {
    const cutTo = call === 'write' && this.#writeStart !== null ? this.#writeStart : synced;
    this.#writeStart = null;
    if (cutTo.segment !== this.#active() || cutTo.positionBytes > this.#active().sizeBytes) return;
    try {
      this.#active().endAt(cutTo.positionBytes, cutTo.nextOffset);
    } catch {
      // The first failure is the one reported; reopening cuts what this could not.
    }
  }

  /**
   * Asserts everything that must hold between calls, for tests and tools (it walks every loaded
   * index; no append calls it): segments sorted and contiguous, no write half-done, the synced
   * point inside the log, and each segment's own (BatchedSegment.checkInvariants).
   */
  checkInvariants(): void {
    this.#segments.checkInvariants(this.#engine.synced, this.endOffset);
    assert(this.startOffset <= this.endOffset, 'the log starts at or before its end');
    assert(this.#writeStart === null, 'no write is half-done between calls');
  }

  #checkWritable(): void {
    this.#checkOpen();
    if (this.config.readOnly) throw readOnlyError(this.dir);
    this.#engine.checkNotFenced();
  }

  #checkOpen(): void {
    if (this.#closed) throw closedError(this.dir);
  }

  /** The record at `offset`; OFFSET_OUT_OF_RANGE outside the log, CORRUPT_BATCH if damaged. */
  read(offset: number): BatchedLogRecord {
    return this.lookup(offset).record;
  }

  /**
   * Finds `offset` as Kafka does: the segment, the offset index's entry at or below it, batch
   * headers stepped to its batch, that batch alone read, checked and decompressed.
   */
  lookup(offset: number): BatchedLookup {
    return lookupIn(this.#segmentFor(offset), offset);
  }

  #segmentFor(offset: number): BatchedSegment {
    this.#checkOpen();
    assert(Number.isSafeInteger(offset), `offset is an integer: ${offset}`);
    if (offset < this.startOffset || offset >= this.endOffset)
      throw outOfRange(offset, this.startOffset, this.endOffset);
    return this.#segments.holding(offset);
  }

  /** Decoded batches from the one holding `fromOffset` to the end, in order. */
  *readBatches(fromOffset: number = this.startOffset): Generator<StoredBatch> {
    if (fromOffset === this.endOffset) return;
    const segments = this.#segments.all;
    const first = segments.indexOf(this.#segmentFor(fromOffset));
    yield* batchesFrom(segments, first, fromOffset);
  }

  /** Records from `fromOffset` to the end, in offset order. */
  records(fromOffset: number = this.startOffset): Generator<BatchedLogRecord> {
    return recordsFrom(this.readBatches(fromOffset), fromOffset);
  }

  /** The first record whose timestamp is at or after `timestampMs` (Kafka's ListOffsets). */
  lookupByTime(timestampMs: number): BatchedLogRecord | null {
    this.#checkOpen();
    return recordAtTime(this.#segments.all, timestampMs);
  }

  segments(): BatchedSegmentInfo[] {
    this.#checkOpen();
    return this.#segments.all.map(segmentInfoOf);
  }

  /** Waits for appends made so far, then makes them and the indexes durable (any policy). */
  async flush(): Promise<void> {
    this.#checkWritable();
    await this.#writeTurn;
    // After a thread-pool sync in flight has settled (DurabilityEngine.exclusive says why).
    await this.#engine.exclusive(() => {
      this.#checkWritable();
      this.#engine.guard('sync', () => {
        this.#active().sync();
        this.#savePoint();
      });
    });
  }

  /** Waits for appends, syncs everything (unless fenced), closes the files, drops the lock. */
  async close(): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    await this.#writeTurn;
    const engine = this.#engine;
    await engine.exclusive(() => {
      this.#closed = true;
      try {
        if (!this.config.readOnly && engine.fenced === null) {
          engine.guard('sync', () => {
            this.#active().finishTimeIndex();
            this.#active().sync();
            this.#savePoint();
          });
          engine.close(this.#endOfActive(), this.#active().nextOffset);
        } else engine.abandon();
      } catch (error) {
        engine.abandon();
        throw error;
      } finally {
        this.#closeFiles();
      }
    });
  }

  #closeFiles(): void {
    try {
      this.#segments.close();
    } finally {
      this.#lock?.release();
    }
  }
}

/**
 * The log's live segments, for a test that proves checkInvariants fails on state a bug could
 * leave. Not exported through storage/index.ts.
 */
export function batchedSegmentsForTesting(log: BatchedLog): readonly BatchedSegment[] {
  return segmentsOf(log);
}

/** The encode scratch: batches larger than this get a buffer of their own. */
const SCRATCH_MAX_BYTES = MiB;
