/**
 * Reads the log in order from a starting point, segment after segment, with one large read
 * window and no index (the cursor's path in lesson 2: "keep the file and byte position, read the
 * next record, move on"). At the end it returns null; call `next` again after more appends.
 */
import type { FileIO } from './file-io.js';
import type { Segment } from './segment.js';
import { ReadWindow } from './read-window.js';
import { asOffset } from './units.js';
import type { LogRecord } from './log.js';

const READER_WINDOW_BYTES = 256 * 1024;

export class LogReader {
  readonly #segments: () => readonly Segment[];
  readonly #window: ReadWindow;
  #segment: Segment;
  #positionBytes: number;
  #nextOffset: number;

  constructor(io: FileIO, segments: () => readonly Segment[], segment: Segment, positionBytes: number, nextOffset: number) {
    this.#segments = segments;
    this.#window = new ReadWindow(io, READER_WINDOW_BYTES);
    this.#segment = segment;
    segment.bindWindow(this.#window);
    this.#positionBytes = positionBytes;
    this.#nextOffset = nextOffset;
  }

  /** The offset `next` returns next. */
  get nextOffset(): number {
    return this.#nextOffset;
  }

  next(): LogRecord | null {
    while (this.#positionBytes >= this.#segment.sizeBytes) {
      const following = this.#followingSegment();
      if (following === null) return null;
      this.#segment = following;
      following.bindWindow(this.#window);
      this.#positionBytes = 0;
    }
    const record = this.#segment.readAt(this.#window, this.#positionBytes, this.#nextOffset);
    if (record === null) return null;
    const result: LogRecord = {
      offset: asOffset(this.#nextOffset),
      body: record.body,
      attributes: record.attributes,
      segmentBaseOffset: this.#segment.baseOffset,
      positionBytes: record.positionBytes,
      sizeBytes: record.sizeBytes,
    };
    this.#positionBytes += record.sizeBytes;
    this.#nextOffset++;
    return result;
  }

  /** The segment that starts where this one ended (found by offset: retention may have removed this one). */
  #followingSegment(): Segment | null {
    const current = this.#segment;
    return this.#segments().find((segment) => segment !== current && segment.baseOffset === this.#nextOffset) ?? null;
  }
}
