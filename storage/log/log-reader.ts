/**
 * Reads the log in order from a starting point, segment after segment, with one large read window
 * and no index (the cursor's path in the course, lesson 2: "keep the file and byte position, read
 * the next record, move on"). At the end it returns null; call `next` again after more appends.
 *
 * A damaged record costs that record, not the rest of the log: `next` throws CORRUPT_RECORD for
 * it and has already moved past it, to the record after it (resync.ts), so the following call
 * goes on from there. If the damage took more records with it (a damaged length, and the next
 * good record is further on), each lost offset is reported the same way, one call each, so a
 * caller that counts offsets stays in step with the log.
 */
import type { FileIO } from '../io/file-io.js';
import { StorageError, isStorageError } from '../errors.js';
import type { Segment } from './segment.js';
import { type SegmentRecord, readRecordAt } from './segment-lookup.js';
import { ReadWindow } from '../io/read-window.js';
import { type RecordAttributes, corruptRecord } from '../record/record.js';
import { type Offset, asOffset } from '../units.js';

const READER_WINDOW_BYTES = 256 * 1024;

/** A record as the log's reads return it (Log.read, LogReader.next), with its place. */
export interface LogRecord {
  readonly offset: Offset;
  readonly body: Buffer;
  readonly attributes: RecordAttributes | undefined;
  readonly segmentBaseOffset: number;
  readonly positionBytes: number;
  readonly sizeBytes: number;
}

/** Where the reader starts: a record boundary, and the first offset it returns. */
export interface ReaderStart {
  readonly segment: Segment;
  readonly positionBytes: number;
  /** The offset of the record at `positionBytes`. */
  readonly offset: number;
  /** Records before this one are read (to find the way) but not returned. */
  readonly fromOffset: number;
}

interface Damage {
  readonly file: string;
  readonly positionBytes: number;
  readonly offset: number;
  /** Offsets from the damaged one up to this one are unreadable. */
  readonly lostBelow: number;
}

/** What a reader asks its log. */
export interface ReaderSource {
  /** The log's segments, every append written to them. */
  segments(): readonly Segment[];
  /** The log's fence, when a failure stopped it (and may have cut segments away). */
  fenced(): StorageError | null;
}

export class LogReader {
  readonly #source: ReaderSource;
  readonly #window: ReadWindow;
  readonly #fromOffset: number;
  #segment: Segment;
  #positionBytes: number;
  #nextOffset: number;
  #damage: Damage | null = null;

  constructor(io: FileIO, source: ReaderSource, start: ReaderStart) {
    this.#source = source;
    this.#window = new ReadWindow(io, READER_WINDOW_BYTES);
    this.#segment = start.segment;
    start.segment.bindWindow(this.#window);
    this.#positionBytes = start.positionBytes;
    this.#nextOffset = start.offset;
    this.#fromOffset = start.fromOffset;
  }

  /** The offset `next` returns (or reports as damaged) next. */
  get nextOffset(): number {
    return Math.max(this.#nextOffset, this.#fromOffset);
  }

  /** The next record; null at the end; CORRUPT_RECORD for a damaged or lost one (see the top). */
  next(): LogRecord | null {
    for (;;) {
      try {
        const record = this.#step();
        if (record === null || record.offset >= this.#fromOffset) return record;
      } catch (error) {
        const offset = isStorageError(error, 'CORRUPT_RECORD') ? error.context.offset : undefined;
        if (offset === undefined || offset >= BigInt(this.#fromOffset)) throw error;
      }
    }
  }

  /**
   * Moves past the next record without reading it, for a caller that holds its bytes already (a
   * queue handing out the message it has just sent). Moves only when the next record is
   * `offset`, written, whole and `sizeBytes` long by the caller's account, and returns whether
   * it moved; a reader that would report damage or a removed segment first does not move.
   */
  skip(offset: number, sizeBytes: number): boolean {
    if (offset !== this.#nextOffset || offset < this.#fromOffset || this.#inDamage()) return false;
    if (!this.#toNextRecord() || this.#segment.removed) return false;
    // Where the record starts, when the segment knows without a read (page-alignment.ts).
    const start = this.#segment.knownRecordStart(this.#positionBytes, offset);
    if (start < 0 || start + sizeBytes > this.#segment.sizeBytes) return false;
    this.#positionBytes = start + sizeBytes;
    this.#nextOffset++;
    return true;
  }

  #inDamage(): boolean {
    return this.#damage !== null && this.#nextOffset < this.#damage.lostBelow;
  }

  /** Moves into the segment that holds the next record; false at the end of the log. */
  #toNextRecord(): boolean {
    while (this.#positionBytes >= this.#segment.sizeBytes) {
      const segments = this.#source.segments();
      // Asking writes the log's pending appends (group commit): this segment may have grown.
      if (this.#positionBytes < this.#segment.sizeBytes) break;
      const following = this.#followingSegment(segments);
      if (following === null) return false;
      this.#segment = following;
      following.bindWindow(this.#window);
      this.#positionBytes = 0;
    }
    return true;
  }

  #step(): LogRecord | null {
    if (this.#inDamage()) {
      const damage = this.#damage!;
      const lost = this.#nextOffset++;
      const reason = `lost with the damaged record for offset ${damage.offset}`;
      throw corruptRecord(damage.file, damage.positionBytes, reason, lost);
    }
    if (!this.#toNextRecord()) return null;
    // Removed by retention, or by the cut-back of a fence (the fence says which).
    if (this.#segment.removed) throw this.#source.fenced() ?? this.#removedUnderneath();
    const record = this.#readRecord();
    if (record === null) return null;
    const result: LogRecord = {
      offset: asOffset(this.#nextOffset),
      body: record.body,
      attributes: record.attributes,
      segmentBaseOffset: this.#segment.baseOffset,
      positionBytes: record.positionBytes,
      sizeBytes: record.sizeBytes,
    };
    this.#positionBytes = record.positionBytes + record.sizeBytes;
    this.#nextOffset++;
    return result;
  }

  /** Retention removed the segment mid-way: its file is closed, its offsets gone for good. */
  #removedUnderneath(): StorageError {
    return new StorageError(
      'OFFSET_OUT_OF_RANGE',
      `offset ${this.#nextOffset} is gone: retention removed ${this.#segment.logPath} while this reader was in it; ` +
        "start a new reader at the log's start offset",
      { file: this.#segment.logPath, offset: BigInt(this.#nextOffset) },
    );
  }

  /** The record at the reader's position; when it is damaged, moves past it, then throws. */
  #readRecord(): SegmentRecord | null {
    try {
      return readRecordAt(this.#segment, this.#window, this.#positionBytes, this.#nextOffset);
    } catch (error) {
      if (isStorageError(error, 'CORRUPT_RECORD')) this.#skipDamaged();
      throw error;
    }
  }

  #skipDamaged(): void {
    const segment = this.#segment;
    const offset = this.#nextOffset;
    const positionBytes = this.#positionBytes;
    const resume = segment.recordAfterDamage(this.#window, positionBytes, offset);
    this.#damage = {
      file: segment.logPath,
      positionBytes,
      offset,
      lostBelow: resume?.offset ?? this.#endOf(segment),
    };
    this.#positionBytes = resume?.positionBytes ?? segment.sizeBytes;
    this.#nextOffset = offset + 1;
  }

  /** The offset after `segment`'s last record: where the next segment starts, or the log's end. */
  #endOf(segment: Segment): number {
    const later = this.#source.segments().find((other) => other.baseOffset > segment.baseOffset);
    return later?.baseOffset ?? segment.nextOffset;
  }

  /** The segment that starts where this one ended (found by offset: retention may have removed this one). */
  #followingSegment(segments: readonly Segment[]): Segment | null {
    const current = this.#segment;
    return (
      segments.find((segment) => segment !== current && segment.baseOffset === this.#nextOffset) ??
      null
    );
  }
}
