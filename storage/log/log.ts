/**
 * The log: segments named by base offset, appended at the end, read by offset, by time or in
 * order, recovered when opened, trimmed from the start by retention.
 *
 * Appends are synchronous writes into the page cache (plus an fdatasync under `always`), so an
 * append costs one positional write and no promise; `acknowledged(offset)` says when the
 * durability policy allows answering OK. `append` does both.
 *
 * After any write or sync fails the log is fenced (LOG_FENCED until it is reopened) and cut back
 * to what it can vouch for: log-sync.ts says why, and owns the syncs, rolls and recovery points.
 *
 * Segment reuse (under `always` and `group`, whose segments are preallocated): retention keeps
 * the `.log` of a segment it removes as the spare (segment-files.ts) instead of unlinking it, and
 * the next roll renames the spare into place as the new segment's file (Segment.recycled), as
 * PostgreSQL recycles WAL segments: the file is allocated already, so the new segment writes no
 * zeros. Past its data lie the older segment's records, each with an id below the new segment's
 * base offset: no scan takes one for the next record, readers stop at the end of the data, and
 * recovery cuts them with the tail and reports them apart from a torn write (log-loader.ts). A
 * spare found when the log opens is unlinked, never reused: a power cut can leave the spare
 * name beside a segment's for the same file (a rename cut short), and a file the next roll
 * would write over must be one this process made a spare.
 *
 * Why this file is over 450 lines: the Log's own state (its segments, the records held back for
 * the group's sync, the open, closing and closed states, the writer lock) is what every remaining
 * method reads or moves: appends encode into the write buffer and roll, reads write the held
 * records first, flush and close sync them. The segment list, its lookup by offset and its
 * close (segment-list.ts, shared with the batched log), durability (log-sync.ts), retention
 * (log-retention.ts), the spare (spare-segment.ts), lookups (segment-lookup.ts) and refusals
 * (log-errors.ts) have their own files.
 */
import { type StorageError, assert, isStorageError, ignoreFailure } from '../errors.js';
import {
  appendStopped,
  logClosed,
  logReadOnly,
  offsetLimit,
  offsetOutOfRange,
} from './log-errors.js';
import { resolveLogConfig, type LogConfig, type LogOptions } from './log-config.js';
import type { DirectWritesState } from '../io/direct-write.js';
import { type LoadedLog, loadLog } from './log-loader.js';
import type { RecoveryReport } from './recovery-report.js';
import type { Segment } from './segment.js';
import { SegmentList, type SyncedPoint } from '../segments/segment-list.js';
import { type LookupWalk, explainLookup, findRecord, walkStart } from './segment-lookup.js';
import { SpareSegment } from './spare-segment.js';
import { LogRetention } from './log-retention.js';
import { LOOKUP_WINDOW_BYTES, ReadWindow } from '../io/read-window.js';
import type { DurabilityEngine } from '../io/durability-engine.js';
import { LogSync } from './log-sync.js';
import {
  encodeRecordInto,
  frameSizeAt,
  recordSizeBytes,
  recordTooLarge,
  type RecordAttributes,
} from '../record/record.js';
import { MAX_APPEND_OFFSET, asOffset, type Offset } from '../units.js';
import { type WriterLock, openUnderWriterLock, releaseAfterFailure } from '../io/writer-lock.js';
import { type LogRecord, LogReader, type ReaderSource } from './log-reader.js';

export interface SegmentInfo {
  readonly baseOffset: number;
  readonly logPath: string;
  readonly sizeBytes: number;
}

const BATCH_BUFFER_BYTES = 1024 * 1024;

/** Lets a test damage a log's segments as a bug would (segmentsForTesting); nothing else. */
let segmentsOf: (log: Log) => readonly Segment[];

export class Log {
  static {
    segmentsOf = (log) => log.#segments.all;
  }

  readonly dir: string;
  /** As opened: `maxRecordBytes` is what appends may write. */
  readonly config: LogConfig;
  readonly recovery: RecoveryReport;
  readonly #segments: SegmentList<Segment>;
  readonly #lookupWindow: ReadWindow;
  #writeBuffer: Buffer;
  /** How many bytes of records `#writeBuffer` holds at most; a page fill may follow them. */
  readonly #writeCapacityBytes: number;
  #extraWriteBytes = 0;
  /**
   * Records encoded into the write buffer and not yet written. Under `group` they wait there for
   * the group's sync, which writes them all with one write before its fdatasync (as WAL group
   * commit does): acknowledgement still waits for that fdatasync, so what a crash can lose is
   * what was never acknowledged. Under `none` and `always` each append is written at once.
   * Anything that reads the files writes them first.
   */
  #pendingBytes = 0;
  #pendingRecords = 0;
  /** The engine's syncs, each roll's sync, recovery points and the fence's cut back. */
  readonly #sync: LogSync;
  /** The sync's engine, held directly: every append asks it something. */
  readonly #engine: DurabilityEngine<SyncedPoint<Segment>>;
  #closed = false;
  /** The close in progress or done (close returns it to every caller). */
  #closing: Promise<void> | null = null;
  /** Held from open to close by a writable log: one writer per directory. */
  readonly #lock: WriterLock | null;
  readonly #spare: SpareSegment;
  readonly #retention: LogRetention;

  private constructor(dir: string, config: LogConfig, loaded: LoadedLog, lock: WriterLock | null) {
    const { segments, report: recovery, segmentConfig, savedPoint } = loaded;
    this.#lock = lock;
    this.dir = dir;
    this.config = config;
    this.recovery = recovery;
    this.#segments = new SegmentList(segments);
    this.#lookupWindow = new ReadWindow(config.io, LOOKUP_WINDOW_BYTES);
    this.#writeCapacityBytes = Math.max(config.maxRecordBytes, BATCH_BUFFER_BYTES);
    // A page more than the records take: room for a write's page fill (page-fill.ts).
    this.#writeBuffer = Buffer.allocUnsafe(this.#writeCapacityBytes + config.pageBytes);
    this.#sync = new LogSync(
      {
        dir,
        config,
        segments: this.#segments,
        writePending: () => this.#writePending(),
        dropPending: () => this.#dropPending(),
        newSegment: (baseOffset) => this.#spare.newSegment(baseOffset),
        isClosed: () => this.#closed,
      },
      savedPoint,
    );
    this.#engine = this.#sync.engine;
    const reuses = this.#engine.syncsBeforeAcknowledging && config.preallocateBytes > 0;
    // Segments read with the log's stored record limit, never below the configured one.
    this.#spare = new SpareSegment(config.io, dir, segmentConfig, reuses, config.layOutSpares);
    this.#retention = new LogRetention(
      { io: config.io, dir, segments: this.#segments },
      this.#spare,
      (segment) => this.#sync.releaseForRemoval(segment),
    );
  }

  /**
   * Opens (creating or recovering) the log in `dir`; with `readOnly`, opens an existing log for
   * reading without changing anything (LogOptions.readOnly).
   */
  static open(dir: string, options: LogOptions = {}): Log {
    const config = resolveLogConfig(options);
    if (config.readOnly) return new Log(dir, config, loadLog(dir, config), null);
    return openUnderWriterLock(config.io, dir, `the log in ${dir}`, (lock) => {
      return new Log(dir, config, loadLog(dir, config), lock);
    });
  }

  #active(): Segment {
    return this.#segments.active;
  }

  /** The oldest offset still in the log. */
  get startOffset(): Offset {
    return asOffset(this.#segments.oldest.baseOffset);
  }

  /** The offset the next append gets. */
  get endOffset(): Offset {
    return asOffset(this.#active().nextOffset + this.#pendingRecords);
  }

  /** Every offset below this is on the device: the last sync, roll or recovery covered it. */
  get syncedEndOffset(): Offset {
    return asOffset(this.#engine.synced.nextOffset);
  }

  /**
   * Asserts everything that must hold between calls, for tests and tools (it walks every loaded
   * index; nothing on the append path calls it): segments sorted and contiguous, records held
   * back only under `group` and fitting the write buffer, the synced point inside the log, and
   * each segment's own (Segment.checkInvariants).
   */
  checkInvariants(): void {
    const segments = this.#segments;
    segments.checkInvariants(this.#engine.synced, this.endOffset);
    assert(this.startOffset <= this.endOffset, 'the log starts at or before its end');
    assert(
      (this.#pendingBytes === 0) === (this.#pendingRecords === 0),
      'pending bytes are pending records',
    );
    assert(this.#pendingBytes === 0 || this.#engine.gathersWrites, 'only group holds records back');
    assert(this.#pendingBytes <= this.#writeCapacityBytes, 'pending records fit the buffer');
    assert(
      this.#retention.unremoved === null || !segments.all.includes(this.#retention.unremoved),
      'a segment retention took out is out of the log',
    );
  }

  /** Rolls since the log was opened that renamed retention's spare into place (segment reuse). */
  get segmentsReused(): number {
    return this.#spare.reused;
  }

  /** Rolls since the log was opened that renamed a spare laid out ahead into place. */
  get segmentsLaidOut(): number {
    return this.#spare.laidOutUsed;
  }

  /**
   * Bytes its writes carried since the log was opened besides the records: zeros filling the rest
   * of a page an append first reached (page-fill.ts) and, with direct writes, the rest of the
   * blocks each write covered (direct-write.ts). Figures that count the bytes a log writes
   * against its records' subtract them.
   */
  get extraWriteBytes(): number {
    return this.#extraWriteBytes;
  }

  /**
   * `off` unless the log was opened with `directWrites`; `refused` when the system would not
   * take them (`directWritesRefusal` says why) and the log writes through the page cache.
   */
  get directWrites(): DirectWritesState {
    return this.config.directWrites?.state ?? 'off';
  }

  get directWritesRefusal(): string | null {
    return this.config.directWrites?.refusal ?? null;
  }

  /** Whether an acknowledgement waits for an fdatasync under this log's policy. */
  get syncsBeforeAcknowledging(): boolean {
    return this.#engine.syncsBeforeAcknowledging;
  }

  get sizeBytes(): number {
    return this.#segments.all.reduce((sum, segment) => sum + segment.sizeBytes, this.#pendingBytes);
  }

  /**
   * Appends one record without waiting for the disk and returns its offset: written into the
   * page cache at once, or under `group` held for the group's sync (see #pendingBytes); under
   * `always` its own fdatasync starts. Call `acknowledged(offset)` before answering OK.
   */
  appendNoWait(body: Uint8Array, attributes?: RecordAttributes): Offset {
    this.#checkWritable();
    this.#checkOffsetLimit(1);
    const sizeBytes = this.#checkedSize(body, attributes);
    const offset = this.#encode(body, attributes, sizeBytes);
    this.#written(sizeBytes);
    return offset;
  }

  /**
   * Appends many records with as few writes as possible (one per segment and buffer-full);
   * returns the first offset. Every record gets its index treatment as if appended alone. A
   * record over the size limit refuses the whole batch before anything is written: its
   * RECORD_TOO_LARGE names it (`recordIndex`) and says nothing was stored (`stored` null).
   */
  appendBatchNoWait(bodies: readonly Uint8Array[]): Offset {
    this.#checkWritable();
    assert(bodies.length > 0, 'a batch holds records');
    this.#checkOffsetLimit(bodies.length);
    const sizes = bodies.map((body) => recordSizeBytes(body.length, undefined));
    const tooLarge = sizes.findIndex((sizeBytes) => sizeBytes > this.config.maxRecordBytes);
    if (tooLarge >= 0) {
      const refusal = recordTooLarge(sizes[tooLarge]!, this.config.maxRecordBytes);
      const which = `record ${tooLarge} of the batch (stored whole or not at all)`;
      throw appendStopped(refusal, null, tooLarge, which, this.endOffset);
    }
    const first = this.endOffset;
    bodies.forEach((body, i) => this.#encode(body, undefined, sizes[i]!));
    this.#written(sizes.reduce((sum, sizeBytes) => sum + sizeBytes, 0));
    return first;
  }

  /**
   * Appends records one at a time, in order, each as appendNoWait does (a roll may fall between
   * two); returns the first offset. Unlike appendBatchNoWait, all or nothing, the first record
   * that fails stops it and those before it stay: the error, with that record's code, says which
   * offsets were stored (`stored`, still in the log; null when none) and which record stopped it
   * (`recordIndex`). Acknowledge the stored ones as any append: `acknowledged(lastOffset)`.
   * `loglab append` appends its lines this way.
   */
  appendEachNoWait(bodies: readonly Uint8Array[]): Offset {
    const first: number = this.endOffset;
    for (let i = 0; i < bodies.length; i++) {
      try {
        this.appendNoWait(bodies[i]!);
      } catch (error) {
        if (!isStorageError(error)) throw error;
        // A failed write fences the log and cuts it back: only what is left counts.
        const end = Math.min(first + i, this.endOffset);
        const stored = end > first ? { firstOffset: first, lastOffset: end - 1 } : null;
        throw appendStopped(error, stored, i, `record ${i}`, this.endOffset);
      }
    }
    return asOffset(first);
  }

  /** Resolves with `offset` when the durability policy allows acknowledging it. */
  acknowledged(offset: Offset): Promise<Offset> {
    return this.#engine.acknowledged(offset) as Promise<Offset>;
  }

  /**
   * Appends one record and resolves with its offset once the durability policy allows answering
   * OK (see durability.ts). Its fdatasync holds the event loop only as `syncMode` allows
   * (durability.ts). A refused record (too large, log fenced or closed) rejects and writes nothing.
   */
  append(body: Uint8Array, attributes?: RecordAttributes): Promise<Offset> {
    let offset: Offset;
    try {
      offset = this.appendNoWait(body, attributes);
    } catch (error) {
      return Promise.reject(error);
    }
    // The engine's promise itself: an async function around it cost a promise, an await and
    // about 370 bytes of garbage per append (a heap profile), a quarter of the scavenges.
    return this.acknowledged(offset);
  }

  /** appendBatchNoWait, then waits until the batch's last record may be acknowledged. */
  async appendBatch(bodies: readonly Uint8Array[]): Promise<Offset> {
    const first = this.appendBatchNoWait(bodies);
    await this.acknowledged(asOffset(first + bodies.length - 1));
    return first;
  }

  /** The record at `offset`; OFFSET_OUT_OF_RANGE outside the log, CORRUPT_RECORD when damaged. */
  read(offset: number): LogRecord {
    this.#checkOpen();
    this.#writePending();
    const segment = this.#segmentFor(offset);
    const found = findRecord(segment, this.#lookupWindow, offset);
    if (found === null) throw this.#outOfRange(offset);
    return {
      offset: asOffset(offset),
      body: found.body,
      attributes: found.attributes,
      segmentBaseOffset: segment.baseOffset,
      positionBytes: found.positionBytes,
      sizeBytes: found.sizeBytes,
    };
  }

  /** The lookup of `offset` (the course, lesson 2): segment, index entry, bytes stepped. */
  explainLookup(offset: number): LookupWalk {
    this.#checkOpen();
    this.#writePending();
    return explainLookup(this.#segmentFor(offset), this.#lookupWindow, offset);
  }

  /**
   * A sequential reader from `fromOffset`: one index lookup to start, then no index at all. It
   * starts at the index entry at or below `fromOffset` and reads its way up, so a damaged record
   * at or before `fromOffset` costs that record only (see log-reader.ts).
   */
  reader(fromOffset: number): LogReader {
    this.#checkOpen();
    this.#writePending();
    const source: ReaderSource = {
      // A reader at the end asks again: pending appends are written first, so it finds them.
      segments: () => {
        this.#writePending();
        return this.#segments.all;
      },
      fenced: () => this.#engine.fenced,
    };
    if (fromOffset === this.endOffset) {
      const active = this.#active();
      const start = { positionBytes: active.sizeBytes, offset: fromOffset, fromOffset };
      return new LogReader(this.config.io, source, { segment: active, ...start });
    }
    const segment = this.#segmentFor(fromOffset);
    const start = walkStart(segment, fromOffset);
    return new LogReader(this.config.io, source, { segment, ...start, fromOffset });
  }

  /**
   * The first record whose time is at or after `timestampMs`; the end offset when none is. The
   * records carry no time: a record's time is the largest time its segment's time index read up
   * to it (Kafka's max timestamp so far; read for each segment's first record and with each
   * offset entry), so with a sparse index the answer is precise to one index interval
   * (docs/storage.md).
   */
  offsetForTime(timestampMs: number): Offset {
    this.#checkOpen();
    this.#writePending();
    for (const segment of this.#segments.all) {
      const timeIndex = segment.timeIndex();
      const slot = timeIndex.firstSlotAtOrAfter(timestampMs);
      if (slot < timeIndex.entries)
        return asOffset(segment.baseOffset + timeIndex.relativeOffsetAt(slot));
    }
    return this.endOffset;
  }

  /** The segment files, every append written to them first. */
  segments(): SegmentInfo[] {
    this.#writePending();
    return this.#segments.all.map((segment) => ({
      baseOffset: segment.baseOffset,
      logPath: segment.logPath,
      sizeBytes: segment.sizeBytes,
    }));
  }

  /**
   * Retention: deletes every sealed segment whose records are all below `offset`, oldest first,
   * each durably (log-retention.ts); never the active segment. Returns what was removed. The
   * event loop waits for the names and a directory fsync per segment; the files' blocks are freed
   * afterwards on the thread pool, and `close()` waits for that.
   */
  deleteSegmentsBelow(offset: number): { segments: number; bytes: number } {
    this.#checkOpen();
    this.#checkNotReadOnly('delete segments of');
    return this.#retention.deleteBelow(offset);
  }

  /**
   * Resolves once the files of the segments retention removed are closed, so their blocks are
   * freed: for a benchmark that must not time that work on the thread pool as part of what it
   * measures next. Never rejects.
   */
  removalsSettled(): Promise<void> {
    return this.#retention.filesClosing() ?? Promise.resolve();
  }

  /**
   * fdatasyncs everything written so far (any policy) and saves a recovery point. The syncs run
   * on the event loop: a flush is asked for, rare, and must not interleave with appends.
   */
  async flush(): Promise<void> {
    this.#checkNotReadOnly('flush');
    this.#checkWritable();
    const flush = (): void => {
      this.#checkWritable();
      this.#writePending();
      this.#engine.guard('sync', () => this.#sync.saveRecoveryPoint());
    };
    // After a thread-pool sync in flight has settled (DurabilityEngine.exclusive says why);
    // with none in flight, exclusive runs it before this call returns.
    await this.#engine.exclusive(flush);
  }

  /**
   * Syncs, saves the recovery point (so the next open scans nothing), releases the writer lock and
   * closes every file. It waits for a thread-pool sync in flight first (DurabilityEngine.exclusive
   * says why; closing a file under its fdatasync would also fail it with EBADF), and for a roll's
   * background sync before the files close; the syncs' waiters learn their outcome. A second call
   * returns the first one's promise.
   */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  /** With no sync in flight, every step runs before close() returns: the files are closed. */
  async #close(): Promise<void> {
    if (this.#engine.inFlight === null) this.#syncAndRelease();
    else await this.#engine.exclusive(() => this.#syncAndRelease());
    const inUse = this.#sync.inUse();
    if (inUse !== null) await inUse;
    const removedClosing = this.#retention.filesClosing();
    if (removedClosing !== null) await removedClosing;
    this.#segments.close();
  }

  /** The synchronous part of close: the last sync and point, then the writer lock. */
  #syncAndRelease(): void {
    const engine = this.#engine;
    // Fenced or not: no layout may name a file once the writer lock is gone.
    ignoreFailure(() => this.#spare.abandonLayout());
    try {
      if (engine.fenced === null && !this.config.readOnly) {
        this.#writePending();
        // Unlinked before the last point, whose directory fsync makes it durable: a spare left
        // for the next open would be unlinked there (the top of this file).
        if (this.#spare.exists) ignoreFailure(() => this.#spare.remove());
        engine.guard('sync', () => this.#sync.saveRecoveryPoint(true));
        this.#sync.close();
      } else engine.abandon();
    } catch (error) {
      // The files are closed all the same: a failed close must not leak them.
      engine.abandon();
      this.#segments.abandon();
      this.#closed = true;
      if (this.#lock !== null) releaseAfterFailure(this.#lock);
      throw error;
    }
    this.#closed = true;
    // Nothing is written after this point (the close synced everything; a closed log's fence
    // cuts nothing), so the next writer may come in now.
    this.#lock?.release();
  }

  get fenced(): StorageError | null {
    return this.#engine.fenced;
  }

  /** Writes into the active segment, zero-filling ahead of it first where preallocation is on. */
  #write(start: number, length: number): void {
    const active = this.#active();
    const writeStart = this.#pendingWriteStart();
    const endBytes = writeStart + length;
    if (active.needsPreallocation(endBytes))
      this.#engine.guard('sync', () => active.preallocate(endBytes));
    if (active.sizeBytes >= this.#spare.layOutAtBytes) this.#spare.layOut();
    // The engine's guard, without the closure it would allocate on every append.
    try {
      this.#extraWriteBytes += active.appendEncoded(this.#writeBuffer, start, length, writeStart);
    } catch (error) {
      this.#engine.fenceOnIoError(error, 'write');
      throw error;
    }
    this.#sync.wrote(length);
  }

  /**
   * Tells the engine what an append wrote; under `none` and `always` the records are written
   * first. When that fails the caller is told so and the records still waiting are dropped, as if
   * never encoded; what the write or sync did reach the file is cut back by the fence to what is
   * known durable. Under `always` with inline syncs, a failure after that point (saving a
   * recovery point) leaves the record durable although the call threw: the outcome is unknown
   * to the caller, as with any failed request.
   */
  #written(sizeBytes: number): void {
    try {
      if (!this.#engine.gathersWrites) this.#writePending();
      // Plain arithmetic, not the endOffset getter's checked constructor: this runs per append.
      this.#engine.wrote(this.#active().nextOffset + this.#pendingRecords, sizeBytes);
    } catch (error) {
      this.#dropPending();
      throw error;
    }
  }

  #checkedSize(body: Uint8Array, attributes: RecordAttributes | undefined): number {
    const sizeBytes = recordSizeBytes(body.length, attributes);
    if (sizeBytes > this.config.maxRecordBytes)
      throw recordTooLarge(sizeBytes, this.config.maxRecordBytes);
    return sizeBytes;
  }

  /** Encodes one record after the pending ones, making room first; returns its offset. */
  #encode(body: Uint8Array, attributes: RecordAttributes | undefined, sizeBytes: number): Offset {
    this.#makeRoomFor(sizeBytes);
    const offset = this.#active().nextOffset + this.#pendingRecords;
    encodeRecordInto(this.#writeBuffer, this.#pendingBytes, offset, body, attributes);
    this.#pendingBytes += sizeBytes;
    this.#pendingRecords++;
    return asOffset(offset);
  }

  /** Writes the pending records when the next one cannot join them, and rolls a full segment. */
  #makeRoomFor(sizeBytes: number): void {
    if (this.#pendingBytes > 0) {
      const fitsSegment =
        this.#pendingWriteStart() + this.#pendingBytes + sizeBytes <= this.config.segmentBytes;
      if (fitsSegment && this.#pendingBytes + sizeBytes <= this.#writeCapacityBytes) return;
      this.#writePending();
    }
    this.#sync.rollIfFull(sizeBytes);
  }

  /** Where the pending records' write starts: after a gap when the first would cross a page. */
  #pendingWriteStart(): number {
    const firstBytes = frameSizeAt(this.#writeBuffer, 0, this.config.maxRecordBytes) as number;
    return this.#active().writeStartFor(firstBytes);
  }

  #dropPending(): void {
    this.#pendingBytes = 0;
    this.#pendingRecords = 0;
  }

  /**
   * Under `group`, appends already accepted stay pending when a write fails without fencing (a
   * retry writes the same bytes at the same place); a fence drops them (LogSync cuts back), and a fenced
   * log writes nothing more.
   */
  #writePending(): void {
    const length = this.#pendingBytes;
    if (length === 0 || this.#engine.fenced !== null) return;
    this.#write(0, length);
    this.#dropPending();
  }

  #segmentFor(offset: number): Segment {
    if (!Number.isSafeInteger(offset) || offset < this.startOffset || offset >= this.endOffset) {
      throw this.#outOfRange(offset);
    }
    return this.#segments.holding(offset);
  }

  #outOfRange(offset: number): StorageError {
    return offsetOutOfRange(this.dir, offset, this.startOffset, this.endOffset);
  }

  #checkOpen(): void {
    if (this.#closed) throw logClosed(this.dir);
  }

  #checkWritable(): void {
    this.#checkOpen();
    this.#checkNotReadOnly('append to');
    this.#engine.checkNotFenced();
  }

  #checkNotReadOnly(what: string): void {
    if (this.config.readOnly) throw logReadOnly(this.dir, what);
  }

  /** Refuses appends whose offsets this log could not store exactly (units.ts). */
  #checkOffsetLimit(records: number): void {
    // On every append: plain arithmetic, not the endOffset getter's checked constructor.
    const last = this.#active().nextOffset + this.#pendingRecords + records - 1;
    if (last > MAX_APPEND_OFFSET) throw offsetLimit(this.dir, records, this.endOffset, last);
  }
}

/**
 * The log's live segments, for a test that proves checkInvariants fails on state a bug could
 * leave. Not exported through storage/index.ts.
 */
export function segmentsForTesting(log: Log): readonly Segment[] {
  return segmentsOf(log);
}
