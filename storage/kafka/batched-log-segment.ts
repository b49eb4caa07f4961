/**
 * One segment of the batched log, byte for byte what a Kafka broker writes for a partition:
 *
 *   00000000000000000155.log        v2 batches back to back, nothing between or around them
 *     +--------------------+--------------------+-----+--------------------+
 *     | batch 155..232     | batch 233..310     | ... | batch n..m         |
 *     | 12 + batchLength B | 12 + batchLength B |     | (kafka-batch.ts)   |
 *     +--------------------+--------------------+-----+--------------------+
 *     position 0           position p1
 *
 *   00000000000000000155.index      8-byte entries, big-endian (offset-index.ts)
 *     | lastOffset - 155  i32 | position of that batch  i32 |
 *
 *   00000000000000000155.timeindex  12-byte entries, big-endian (time-index.ts)
 *     | max timestamp so far  i64 ms | its batch's lastOffset - 155  i32 |
 *
 * loglab's OffsetIndex and TimeIndex store u32 where Kafka stores i32; every value Kafka writes
 * there is >= 0 and < 2^31, so the bytes are the same and those classes are used as they are.
 *
 * The index rule is Kafka's LogSegment.append, per batch: before a batch is appended at
 * position p, if more than indexIntervalBytes were written since the last entry (p minus the
 * last entry's position, or p when there is none), an entry (the batch's LAST offset, p) is
 * added, and the time index gets (max timestamp so far, the last offset of the batch that
 * set it) when that timestamp is above its last entry's (Kafka's TimeIndex.maybeAppend). A
 * segment that is rolled, closed or recovered gets that time entry once more (Kafka's
 * onBecomeInactiveSegment), so its last time entry holds its largest timestamp. Kafka keeps the
 * bytes since the last entry in memory and restarts the count at 0 when a broker starts; here
 * it is derived from positions, so a rebuilt index is the one that was written.
 *
 * Lookups (the index entry below, headers stepped, one batch read) are batched-segment-lookup.ts's.
 */
import { type FileHandle, type FileIO, closeAfterFailure, openEmptied } from '../io/file-io.js';
import { StorageError, assert, isStorageError } from '../errors.js';
import { checkSoleLink } from '../io/directory-entries.js';
import { OffsetIndex, type IndexMode } from '../segments/offset-index.js';
import { TimeIndex } from '../segments/time-index.js';
import { ReadWindow, SCAN_WINDOW_BYTES } from '../io/read-window.js';
import { type SegmentPaths, removeSegmentFiles, segmentPaths } from '../segments/segment-files.js';
import { openedOrAbandoned, checkedSegmentEnd } from '../segments/segment-list.js';
import { type Offset, type Position, asOffset, asPosition } from '../units.js';
import {
  BATCH_HEADER_BYTES,
  decodeBatch,
  decodeBatchHeader,
  type KafkaBatch,
} from './kafka-batch.js';
import { type BatchFrame, corruptBatchAt, readBatchFrame } from './batched-log-frame.js';
import { MAX_RELATIVE_OFFSET } from './batched-log-config.js';

export interface BatchedSegmentConfig {
  readonly indexIntervalBytes: number;
  readonly maxBatchBytes: number;
  readonly maxDecompressedBytes: number;
  /** Files opened read-only and never changed; indexes rebuilt in memory only. */
  readonly readOnly: boolean;
}

export interface ScanOutcome {
  /** Position after the last good batch. */
  readonly endPositionBytes: Position;
  /** Offset after the last good batch's last offset. */
  readonly nextOffset: Offset;
  readonly batches: number;
  /** Why the walk stopped before the end of the data; null when it reached it. */
  readonly problem: string | null;
}

export interface ScanOptions {
  /** Apply the index rule to each good batch (recovery). */
  readonly reindex: boolean;
  /** Each batch must start at the offset after the previous one; else only above it. */
  readonly contiguous: boolean;
}

/** Kafka's maxTimestampAndOffsetSoFar: the largest batch max timestamp and its last offset. */
interface TimestampOffset {
  readonly timestampMs: number;
  readonly offset: number;
}

/** Where a recovery scan starts: a batch an index entry vouches for, or the segment start. */
export interface TrustedStart {
  readonly positionBytes: number;
  readonly expectedOffset: number;
  readonly indexEntries: number;
}

export class BatchedSegment {
  readonly baseOffset: number;
  readonly #paths: SegmentPaths;
  readonly dir: string;
  readonly #io: FileIO;
  readonly #config: BatchedSegmentConfig;
  #handle: FileHandle | null = null;
  #sizeBytes = 0;
  #nextOffset: number | null = null;
  #offsetIndex: OffsetIndex | null = null;
  #timeIndex: TimeIndex | null = null;
  /** Null: not known yet (Kafka's UNKNOWN), read from the time index when needed. */
  #maxTimestamp: TimestampOffset | null = null;
  readonly #header = Buffer.alloc(BATCH_HEADER_BYTES);

  private constructor(io: FileIO, dir: string, baseOffset: number, config: BatchedSegmentConfig) {
    this.#io = io;
    this.dir = dir;
    this.baseOffset = baseOffset;
    this.#paths = segmentPaths(dir, baseOffset);
    this.#config = config;
  }

  /** A new, empty segment: three new files, open for appends. */
  static create(
    io: FileIO,
    dir: string,
    baseOffset: number,
    config: BatchedSegmentConfig,
  ): BatchedSegment {
    assert(!config.readOnly, 'a read-only log creates no segment');
    const segment = new BatchedSegment(io, dir, baseOffset, config);
    return openedOrAbandoned(segment, () => {
      segment.#handle = openEmptied(io, segment.logPath);
      segment.#nextOffset = baseOffset;
      segment.#offsetIndex = OffsetIndex.create(io, segment.indexPath);
      segment.#timeIndex = TimeIndex.create(io, segment.timeIndexPath);
    });
  }

  /** An existing segment; its indexes load when first needed. */
  static existing(
    io: FileIO,
    dir: string,
    baseOffset: number,
    config: BatchedSegmentConfig,
  ): BatchedSegment {
    const segment = new BatchedSegment(io, dir, baseOffset, config);
    return openedOrAbandoned(segment, () => {
      segment.#handle = config.readOnly
        ? io.openReadOnly(segment.logPath)
        : io.open(segment.logPath, { create: false });
      segment.#sizeBytes = io.sizeBytes(segment.#handle);
    });
  }

  get logPath(): string {
    return this.#paths.log;
  }

  get indexPath(): string {
    return this.#paths.index;
  }

  get timeIndexPath(): string {
    return this.#paths.timeIndex;
  }

  /** Where this segment's batches end. */
  get sizeBytes(): number {
    return this.#sizeBytes;
  }

  get nextOffset(): number {
    if (this.#nextOffset === null)
      throw new Error(`assertion failed: the end of ${this.logPath} is known`);
    return this.#nextOffset;
  }

  /**
   * Asserts what must hold between calls (BatchedLog.checkInvariants): an end known for the
   * active segment and, where known for a sealed one, at the next segment's base, and each
   * loaded index inside the data. `nextBaseOffset`: the next segment's; null for the active one.
   */
  checkInvariants(nextBaseOffset: number | null): void {
    const end = checkedSegmentEnd(this.logPath, this.baseOffset, this.#nextOffset, nextBaseOffset);
    this.#offsetIndex?.checkEntries(this.#sizeBytes, end - this.baseOffset);
    this.#timeIndex?.checkEntries(end - this.baseOffset);
  }

  /** The log file's handle, for the durability engine's fdatasync. */
  get handle(): FileHandle {
    return this.#file();
  }

  #file(): FileHandle {
    // Not assert(): its message would be built on every read and write (so in nextOffset).
    if (this.#handle === null) throw new Error(`assertion failed: segment ${this.logPath} is open`);
    return this.#handle;
  }

  offsetIndex(): OffsetIndex {
    this.#ensureIndexes();
    return this.#offsetIndex!;
  }

  timeIndex(): TimeIndex {
    this.#ensureIndexes();
    return this.#timeIndex!;
  }

  /** A sealed segment's indexes, read once; both are a cache a lookup checks as it lands. */
  #ensureIndexes(): void {
    if (this.#offsetIndex !== null) return;
    const mode: IndexMode = 'read';
    this.#offsetIndex = OffsetIndex.load(this.#io, this.indexPath, this.#sizeBytes, mode).index;
    const anyRelative = MAX_RELATIVE_OFFSET + 1;
    this.#timeIndex = TimeIndex.load(this.#io, this.timeIndexPath, anyRelative, mode).index;
  }

  /**
   * Writes one encoded batch at the end (its base offset already assigned), then applies the
   * index rule: the log first, so an index entry never names bytes that were not written.
   */
  append(batch: Buffer, frame: BatchFrame): void {
    assert(frame.baseOffset === this.#nextOffset, 'the batch starts at the next offset');
    assert(frame.sizeBytes === batch.length, 'the frame describes the batch');
    const positionBytes = this.#sizeBytes;
    this.#io.write(this.#file(), batch, 0, batch.length, positionBytes);
    this.#indexBatch(frame, positionBytes);
    this.#sizeBytes = positionBytes + batch.length;
    this.#nextOffset = frame.lastOffset + 1;
  }

  #indexBatch(frame: BatchFrame, positionBytes: number): void {
    const max = this.#maxSoFar();
    if (frame.maxTimestampMs > max.timestampMs) {
      this.#maxTimestamp = { timestampMs: frame.maxTimestampMs, offset: frame.lastOffset };
    }
    const index = this.#offsetIndex!;
    const last = index.entries - 1;
    const sinceLastEntryBytes = positionBytes - (last < 0 ? 0 : index.positionAt(last));
    if (sinceLastEntryBytes <= this.#config.indexIntervalBytes) return;
    index.append(frame.lastOffset - this.baseOffset, positionBytes);
    this.#maybeAppendTimeEntry();
  }

  #maxSoFar(): TimestampOffset {
    if (this.#maxTimestamp !== null) return this.#maxTimestamp;
    const timeIndex = this.#timeIndex!;
    const last = timeIndex.entries - 1;
    if (last < 0) return { timestampMs: -1, offset: this.baseOffset };
    const relative = timeIndex.relativeOffsetAt(last);
    return { timestampMs: timeIndex.timestampMsAt(last), offset: this.baseOffset + relative };
  }

  /** The largest timestamp so far, when it is above the last time entry's (TimeIndex.maybeAppend). */
  #maybeAppendTimeEntry(): void {
    const max = this.#maxSoFar();
    this.#timeIndex!.maybeAppend(max.timestampMs, max.offset - this.baseOffset);
  }

  /** The time entry a segment gets when it is rolled, closed or recovered (Kafka's). */
  finishTimeIndex(): void {
    if (this.#timeIndex === null || !this.#timeIndex.isOpen) return;
    this.#maybeAppendTimeEntry();
  }

  /**
   * Walks whole batches from `fromPosition`, checking each frame, CRC and offset, until the end
   * of the data or the first bad batch. With `reindex`, applies the index rule to each.
   */
  scan(fromPosition: number, expectedOffset: number, options: ScanOptions): ScanOutcome {
    const window = new ReadWindow(this.#io, SCAN_WINDOW_BYTES);
    window.bind(this.#file());
    let position = fromPosition;
    let next = expectedOffset;
    let batches = 0;
    let problem: string | null = null;
    while (position < this.#sizeBytes && problem === null) {
      const checked = this.#checkedFrame(window, position, next, options.contiguous);
      if (typeof checked === 'string') {
        problem = checked;
        break;
      }
      if (options.reindex) this.#indexBatch(checked, position);
      position += checked.sizeBytes;
      next = checked.lastOffset + 1;
      batches++;
    }
    return { endPositionBytes: asPosition(position), nextOffset: asOffset(next), batches, problem };
  }

  /** The batch at `position` when whole, sound (CRC) and at the right offset; else why not. */
  #checkedFrame(
    window: ReadWindow,
    position: number,
    next: number,
    contiguous: boolean,
  ): BatchFrame | string {
    const at = window.ensure(position, BATCH_HEADER_BYTES, this.#sizeBytes);
    if (at < 0) return `${this.#sizeBytes - position} bytes at the end, less than a batch header`;
    const frame = readBatchFrame(window.buffer, at, this.#config.maxBatchBytes);
    if (typeof frame === 'string') return frame;
    const offsetOk = contiguous ? frame.baseOffset === next : frame.baseOffset >= next;
    if (!offsetOk) return `base offset ${frame.baseOffset} where ${next} was due`;
    const whole = window.ensure(position, frame.sizeBytes, this.#sizeBytes);
    if (whole < 0) return `a ${frame.sizeBytes}-byte batch runs past the end of the file`;
    const crcProblem = crcProblemOf(window.buffer.subarray(whole, whole + frame.sizeBytes));
    return crcProblem ?? frame;
  }

  /** The frame at `positionBytes`, from its header alone (one 61-byte read); else why not. */
  frameAt(positionBytes: number): BatchFrame | string {
    if (positionBytes + BATCH_HEADER_BYTES > this.#sizeBytes) return 'truncated header';
    const got = this.#io.read(this.#file(), this.#header, 0, BATCH_HEADER_BYTES, positionBytes);
    if (got !== BATCH_HEADER_BYTES) return 'truncated header';
    return readBatchFrame(this.#header, 0, this.#config.maxBatchBytes);
  }

  /** Reads, checks (CRC, records) and decompresses the batch `found` located. */
  readBatch(found: { readonly frame: BatchFrame; readonly positionBytes: number }): KafkaBatch {
    const { frame, positionBytes } = found;
    const bytes = Buffer.allocUnsafe(frame.sizeBytes);
    const got = this.#io.read(this.#file(), bytes, 0, frame.sizeBytes, positionBytes);
    if (got !== frame.sizeBytes) {
      throw corruptBatchAt(this.logPath, positionBytes, `file ends ${got} bytes into the batch`);
    }
    try {
      const { maxBatchBytes, maxDecompressedBytes } = this.#config;
      return decodeBatch(bytes, { maxBatchBytes, maxDecompressedBytes });
    } catch (error) {
      if (!isStorageError(error, 'CORRUPT_BATCH')) throw error;
      throw corruptBatchAt(this.logPath, positionBytes, error.context.reason ?? error.message);
    }
  }

  /**
   * Loads the indexes of the segment recovery scans, keeping offset entries below
   * `trustedBelowBytes` (data a sync vouched for) whose batch checks out and time entries up to
   * that batch; returns where the scan starts. A read-only log keeps them in memory.
   */
  loadIndexesForRecovery(trustedBelowBytes: number, contiguous: boolean): TrustedStart {
    this.#offsetIndex?.close();
    this.#timeIndex?.close();
    const mode: IndexMode = this.#config.readOnly ? 'memory' : 'append';
    const index = OffsetIndex.load(this.#io, this.indexPath, this.#sizeBytes, mode).index;
    this.#offsetIndex = index;
    index.truncateFromPosition(Math.min(trustedBelowBytes, this.#sizeBytes));
    let start: TrustedStart | null = null;
    let trustedLastOffset = this.baseOffset - 1;
    while (start === null && index.entries > 0) {
      const last = index.entries - 1;
      const positionBytes = index.positionAt(last);
      const entryOffset = this.baseOffset + index.relativeOffsetAt(last);
      const frame = this.#soundFrameAt(positionBytes);
      const lands =
        frame !== null &&
        (contiguous ? frame.lastOffset === entryOffset : frame.baseOffset <= entryOffset);
      if (lands) {
        start = { positionBytes, expectedOffset: frame.baseOffset, indexEntries: index.entries };
        trustedLastOffset = frame.lastOffset;
      } else {
        index.truncateFromPosition(positionBytes);
      }
    }
    const nextRelative = trustedLastOffset - this.baseOffset + 1;
    this.#timeIndex = TimeIndex.load(this.#io, this.timeIndexPath, nextRelative, mode).index;
    this.#timeIndex.truncateFromRelativeOffset(nextRelative);
    this.#maxTimestamp = null;
    return start ?? { positionBytes: 0, expectedOffset: this.baseOffset, indexEntries: 0 };
  }

  #soundFrameAt(positionBytes: number): BatchFrame | null {
    const frame = this.frameAt(positionBytes);
    if (typeof frame === 'string') return null;
    if (positionBytes + frame.sizeBytes > this.#sizeBytes) return null;
    const bytes = Buffer.allocUnsafe(frame.sizeBytes);
    const got = this.#io.read(this.#file(), bytes, 0, frame.sizeBytes, positionBytes);
    return got === frame.sizeBytes && crcProblemOf(bytes) === null ? frame : null;
  }

  /**
   * Ends the data at `endPositionBytes` with `nextOffset` next (recovery found the end): the
   * file is cut there, index entries at or past it dropped. Read-only: the bytes stay, unread.
   */
  endAt(endPositionBytes: Position, nextOffset: Offset): void {
    assert(endPositionBytes <= this.#sizeBytes, 'the end is inside the file');
    if (endPositionBytes < this.#sizeBytes && !this.#config.readOnly) {
      // A sealed file may have other links (directory-entries.ts): the cut is refused then.
      checkSoleLink(this.#io, this.logPath);
      this.#io.truncate(this.#file(), endPositionBytes);
    }
    this.#sizeBytes = endPositionBytes;
    this.#nextOffset = nextOffset;
    if (this.#offsetIndex === null) return;
    this.#offsetIndex.truncateFromPosition(endPositionBytes);
    this.#timeIndex!.truncateFromRelativeOffset(nextOffset - this.baseOffset);
  }

  /** Writes buffered index entries, then makes the log and both indexes durable. */
  sync(): void {
    this.#io.fdatasync(this.#file());
    this.#offsetIndex?.sync();
    this.#timeIndex?.sync();
  }

  /** After a roll: index files closed, entries kept in memory. */
  seal(): void {
    this.#offsetIndex?.close();
    this.#timeIndex?.close();
  }

  close(): void {
    this.seal();
    if (this.#handle !== null) this.#io.close(this.#handle);
    this.#handle = null;
  }

  /** Closes every file without writing more, after a failure (that one is reported). */
  abandon(): void {
    this.#offsetIndex?.abandon();
    this.#timeIndex?.abandon();
    const handle = this.#handle;
    this.#handle = null;
    if (handle !== null) closeAfterFailure(this.#io, handle);
  }

  /** Closes and removes the three files (recovery removing what followed a cut). */
  delete(): void {
    this.close();
    removeSegmentFiles(this.#io, this.#paths);
  }
}

/** Null when the whole batch's CRC (and header) check out; else the reason. */
function crcProblemOf(batch: Buffer): string | null {
  try {
    decodeBatchHeader(batch, { maxBatchBytes: batch.length });
    return null;
  } catch (error) {
    if (!(error instanceof StorageError) || error.code !== 'CORRUPT_BATCH') throw error;
    return error.context.reason ?? error.message;
  }
}
