/**
 * A reusable read buffer over one file: asks for "the bytes at [position, position+length)" and
 * reads from the file only when they are not already in the window. Lookups use a small window
 * (a step forward covers about one index interval); scans use a large one. Also where a file's
 * zeros end or start, read through a window.
 */
import type { FileHandle, FileIO } from './file-io.js';
import { assert } from '../errors.js';

/** Scans read this much at a time: few system calls, still small next to a segment. */
export const SCAN_WINDOW_BYTES = 1 << 20;

/** Lookups read about one index interval and a record: a small window keeps warm reads cheap. */
export const LOOKUP_WINDOW_BYTES = 8 * 1024;

/**
 * Bytes of a file held in memory, read from there when they cover a read: what direct writes
 * left out of the page cache (direct-write.ts's RecentBytes).
 */
export interface HeldBytes {
  /** Copies the range into `target` when it holds all of it; false when it does not. */
  readInto(
    target: Buffer,
    targetStart: number,
    lengthBytes: number,
    positionBytes: number,
  ): boolean;
}

export class ReadWindow {
  readonly #io: FileIO;
  #buffer: Buffer;
  #handle: FileHandle | null = null;
  /** Bytes of the file held in memory, read from there when they cover a read (direct-write.ts). */
  #recent: HeldBytes | null = null;
  /** File position of buffer[0]. */
  #startBytes = 0;
  /** Valid bytes in the buffer. */
  #lengthBytes = 0;

  constructor(io: FileIO, capacityBytes: number) {
    assert(capacityBytes > 0, 'a window holds bytes');
    this.#io = io;
    this.#buffer = Buffer.allocUnsafe(capacityBytes);
  }

  get buffer(): Buffer {
    return this.#buffer;
  }

  /** Points the window at a file, and at what of it memory holds; forgets what it held. */
  bind(handle: FileHandle, recent: HeldBytes | null = null): void {
    this.#handle = handle;
    this.#recent = recent;
    this.#lengthBytes = 0;
  }

  /**
   * Reads exactly [positionBytes, positionBytes + lengthBytes) (cut at the end of the file): a
   * lookup knows from the index the range its record lies in, so one read of just that range
   * serves the whole step forward.
   */
  fill(positionBytes: number, lengthBytes: number, fileSizeBytes: number): void {
    if (this.#handle === null) throw new Error('assertion failed: window is bound to a file');
    const wanted = Math.min(lengthBytes, fileSizeBytes - positionBytes);
    if (wanted > this.#buffer.length) this.#buffer = Buffer.allocUnsafe(wanted);
    this.#startBytes = positionBytes;
    this.#lengthBytes = wanted <= 0 ? 0 : this.#read(wanted, positionBytes);
  }

  /**
   * Makes [positionBytes, positionBytes + lengthBytes) available and returns where it starts in
   * `buffer`, or -1 when the file ends before that range does. `fileSizeBytes` bounds the read.
   */
  ensure(positionBytes: number, lengthBytes: number, fileSizeBytes: number): number {
    assert(this.#handle !== null, 'window is bound to a file');
    if (positionBytes + lengthBytes > fileSizeBytes) return -1;
    const inWindow =
      positionBytes >= this.#startBytes &&
      positionBytes + lengthBytes <= this.#startBytes + this.#lengthBytes;
    if (inWindow) return positionBytes - this.#startBytes;
    if (lengthBytes > this.#buffer.length) this.#buffer = Buffer.allocUnsafe(lengthBytes);
    const wanted = Math.min(this.#buffer.length, fileSizeBytes - positionBytes);
    const got = this.#read(wanted, positionBytes);
    this.#startBytes = positionBytes;
    this.#lengthBytes = got;
    return got >= lengthBytes ? 0 : -1;
  }

  #read(lengthBytes: number, positionBytes: number): number {
    if (this.#recent?.readInto(this.#buffer, 0, lengthBytes, positionBytes)) return lengthBytes;
    return this.#io.read(this.#handle!, this.#buffer, 0, lengthBytes, positionBytes);
  }
}

/**
 * The position just after the last non-zero byte at or after `from` (`from` when all are zero):
 * where a file's zero tail starts, such as a preallocated segment's. `window` is bound to the
 * file.
 */
export function endOfNonZeroBytes(window: ReadWindow, from: number, fileSizeBytes: number): number {
  let end = from;
  for (let position = from; position < fileSizeBytes; ) {
    const length = Math.min(window.buffer.length, fileSizeBytes - position);
    const at = window.ensure(position, length, fileSizeBytes);
    if (at < 0) break;
    for (let i = length - 1; i >= 0; i--) {
      if (window.buffer[at + i] !== 0) {
        end = position + i + 1;
        break;
      }
    }
    position += length;
  }
  return end;
}

/**
 * The position of the first non-zero byte from `from` to `to`, `to` when all are zero: where the
 * data after a page fill's zeros starts (recycled-tail.ts).
 */
export function startOfNonZeroBytes(window: ReadWindow, from: number, to: number): number {
  for (let position = from; position < to; ) {
    const length = Math.min(window.buffer.length, to - position);
    const at = window.ensure(position, length, to);
    if (at < 0) return to;
    for (let i = 0; i < length; i++) if (window.buffer[at + i] !== 0) return position + i;
    position += length;
  }
  return to;
}
