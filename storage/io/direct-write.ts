/**
 * Direct writes (the log's `directWrites`, under `always` and `group`): the active segment's
 * records go to the device through an O_DIRECT handle in 512-byte blocks, not the page cache.
 *
 * Why: an fdatasync writes back whole 4 KiB pages, so a synced 1 KiB append costs the device a
 * page at least (page-alignment.ts keeps it to one), and four syncs in a row write the same page
 * four times. A direct write sends only the blocks the record touches: the record, the part of
 * the data's last block before it, and zeros to the end of its own last block; the fdatasync
 * after it then has no dirty page to write, only the device's cache to flush. Measured on this
 * repository's VM (1,040-byte records, a laid-out file, one sync at a time): 1,649 device bytes
 * per append against 4,219 with page alignment, and 9,724 appends a second against 8,455
 * (docs/storage.md). PostgreSQL writes its WAL with O_DIRECT for the same reason where it can.
 *
 * How: a write starts at the block holding its first byte. The bytes of that block before the
 * write are the data's last block as this writer last wrote it (RecentBytes; read back from the
 * file when it does not hold them: a reopened log, a fence's cut), zeros where a gap lies (a
 * record moved to a page boundary); after the records come zeros to the block's end, inside the
 * file's zeros or an older segment's records, which recovery cuts either way (as page-fill.ts's
 * zeros). Rewriting the block before a record rewrites bytes already durable with the same bytes,
 * as a page write does today.
 *
 * Readers: a direct write drops the pages it covers from the page cache, so a reader of the
 * newest records would read them from the device (measured: a reader right behind the writer
 * read 6 KB from the device per record, and the pair ran 34% slower). The segment keeps its
 * newest RECENT_BYTES as written (RecentBytes) and its readers in this process take them from
 * there; a reader further behind, or in another process, reads the file.
 *
 * And each write waits for the device before it returns, on the event loop; the fdatasync after
 * it has only the device's cache to flush, so a sync's whole time still fell (under `group` too,
 * at 1 to 64 producers: docs/storage.md).
 *
 * A file system or platform that refuses them (no O_DIRECT, EINVAL at open or on a write, such as
 * a device of 4 KiB logical blocks or a buffer the kernel finds misaligned) turns them off for the
 * log, which then writes through the page cache as it would without the option and says why
 * (`Log.directWrites`).
 */
import { assert, isStorageError } from '../errors.js';
import { type FileHandle, type FileIO, closeAfterFailure } from './file-io.js';

/** The block a direct write starts and ends on: the logical block of most devices. */
export const DIRECT_BLOCK_BYTES = 512;

/** WebAssembly's page: the staging memory grows by these. */
const WASM_PAGE_BYTES = 64 * 1024;

/** What this file uses of WebAssembly.Memory, which Node's typings leave out. */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
const { Memory } = (
  globalThis as unknown as {
    WebAssembly: { Memory: new (descriptor: { initial: number }) => WasmMemory };
  }
).WebAssembly;

export function directBlockEnd(positionBytes: number): number {
  return Math.ceil(positionBytes / DIRECT_BLOCK_BYTES) * DIRECT_BLOCK_BYTES;
}

export function isDirectAligned(positionBytes: number, lengthBytes: number): boolean {
  return positionBytes % DIRECT_BLOCK_BYTES === 0 && lengthBytes % DIRECT_BLOCK_BYTES === 0;
}

/** Whether the log asked for direct writes, and whether the system refused them. */
export type DirectWritesState = 'off' | 'on' | 'refused';

/**
 * How much of a segment's newest data its readers in this process take from memory: a queue's
 * consumer, or a reader a few hundred records behind the writer.
 */
export const RECENT_BYTES = 256 * 1024;

/**
 * The newest bytes direct writes left in a segment, [startBytes, endBytes) of its file, as they
 * were written: the page cache no longer holds them.
 */
export class RecentBytes {
  #buffer = Buffer.alloc(0);
  #startBytes = 0;
  #endBytes = 0;

  /**
   * Copies [positionBytes, positionBytes + lengthBytes) into `target` from `targetStart` when it
   * holds all of it; false when it does not (the caller reads the file).
   */
  readInto(
    target: Buffer,
    targetStart: number,
    lengthBytes: number,
    positionBytes: number,
  ): boolean {
    if (positionBytes < this.#startBytes || positionBytes + lengthBytes > this.#endBytes)
      return false;
    const from = positionBytes - this.#startBytes;
    this.#buffer.copy(target, targetStart, from, from + lengthBytes);
    return true;
  }

  /**
   * A direct write put `staged` at `blockStart`, up to `endBytes`, in a file whose data ended at
   * `dataEndBefore`. Kept on from what it holds when the two meet; else it starts over there.
   */
  wrote(staged: Buffer, blockStart: number, dataEndBefore: number, endBytes: number): void {
    const follows =
      this.#endBytes === dataEndBefore &&
      blockStart <= dataEndBefore &&
      blockStart >= this.#startBytes;
    if (!follows) this.#startBytes = this.#endBytes = blockStart;
    if (endBytes - this.#startBytes > RECENT_BYTES) {
      this.#keepFrom(Math.min(blockStart, endBytes - RECENT_BYTES / 2));
    }
    const needed = endBytes - this.#startBytes;
    if (this.#buffer.length < needed) {
      const grown = Buffer.allocUnsafe(Math.max(needed, Math.min(2 * needed, RECENT_BYTES)));
      this.#buffer.copy(grown, 0, 0, this.#endBytes - this.#startBytes);
      this.#buffer = grown;
    }
    staged.copy(this.#buffer, blockStart - this.#startBytes, 0, endBytes - blockStart);
    this.#endBytes = endBytes;
  }

  /**
   * Holds nothing more, and frees its memory: the file changed otherwise (a cut back), or its
   * segment was sealed (a log of many segments must not keep a buffer for each).
   */
  forget(): void {
    this.#startBytes = this.#endBytes = 0;
    this.#buffer = Buffer.alloc(0);
  }

  /** Drops what lies before `fromBytes` (at most the write's start, which it keeps). */
  #keepFrom(fromBytes: number): void {
    const from = Math.max(fromBytes, this.#startBytes);
    this.#buffer.copy(this.#buffer, 0, from - this.#startBytes, this.#endBytes - this.#startBytes);
    this.#startBytes = from;
  }
}

/** A log's direct writes, shared by its segments: one refusal turns them off for all. */
export class DirectWrites {
  #refusal: string | null = null;

  get state(): Exclude<DirectWritesState, 'off'> {
    return this.#refusal === null ? 'on' : 'refused';
  }

  /** Why the system refused them; null while they are on. */
  get refusal(): string | null {
    return this.#refusal;
  }

  refuse(reason: string): void {
    this.#refusal ??= reason;
  }
}

/**
 * The process's staging memory: a direct write's buffer must start on a block in memory too once
 * it spans pages (EINVAL otherwise, measured here), and Node has no aligned allocation. A
 * WebAssembly memory is page-aligned (V8 maps it whole, to guard its bounds), and a Buffer over
 * it is an ordinary one for node:fs. One for every log of the process: a write stages and
 * writes its blocks within one synchronous call, and each memory reserves gigabytes of address
 * space.
 */
let stagingMemory: WasmMemory | null = null;
let stagingBuffer = Buffer.alloc(0);

function stagingFor(lengthBytes: number): Buffer {
  if (stagingBuffer.length >= lengthBytes) return stagingBuffer;
  const pages = Math.ceil(lengthBytes / WASM_PAGE_BYTES);
  if (stagingMemory === null) stagingMemory = new Memory({ initial: pages });
  else stagingMemory.grow(pages - stagingMemory.buffer.byteLength / WASM_PAGE_BYTES);
  stagingBuffer = Buffer.from(stagingMemory.buffer);
  return stagingBuffer;
}

/** An EINVAL from a direct write: the system will not take it, and nothing was written. */
export function isDirectRefusal(error: unknown): boolean {
  return isStorageError(error, 'IO_ERROR') && error.context.reason === 'EINVAL';
}

/** What a segment lends its direct writer. */
export interface DirectSegment {
  /** The segment's own handle, through the page cache. */
  readonly readHandle: FileHandle;
  readonly writes: DirectWrites;
  readonly recent: RecentBytes;
}

/** The active segment's direct handle. */
export class DirectWriter {
  readonly #io: FileIO;
  readonly #handle: FileHandle;
  /** The segment's own handle, through the page cache: where an unknown last block is read. */
  readonly #readHandle: FileHandle;
  /** What the last writes left, the data's last block among it (RecentBytes keeps it). */
  readonly #recent: RecentBytes;

  private constructor(io: FileIO, handle: FileHandle, segment: DirectSegment) {
    this.#io = io;
    this.#handle = handle;
    this.#readHandle = segment.readHandle;
    this.#recent = segment.recent;
  }

  /** Null when the system refuses a direct handle to `filePath` (and `writes` says so). */
  static open(io: FileIO, filePath: string, segment: DirectSegment): DirectWriter | null {
    const handle = io.openDirect(filePath);
    if (handle !== null) return new DirectWriter(io, handle, segment);
    segment.writes.refuse('the file system refused an O_DIRECT handle');
    return null;
  }

  /**
   * Writes `length` bytes of `buffer` from `start` at `writeStart`, in a file whose data ends at
   * `dataEndBytes` (at or before `writeStart`). Returns the bytes written besides them: the
   * block's bytes before `writeStart` and the zeros after the records.
   */
  write(
    buffer: Buffer,
    start: number,
    length: number,
    writeStart: number,
    dataEndBytes: number,
  ): number {
    assert(dataEndBytes <= writeStart && length > 0, 'direct writes append after the data');
    const blockStart = writeStart - (writeStart % DIRECT_BLOCK_BYTES);
    const endBytes = writeStart + length;
    const paddedEnd = directBlockEnd(endBytes);
    const staging = stagingFor(paddedEnd - blockStart);
    const before = writeStart - blockStart;
    staging.fill(0, 0, before);
    this.#copyDataBefore(staging, blockStart, dataEndBytes);
    buffer.copy(staging, before, start, start + length);
    staging.fill(0, before + length, paddedEnd - blockStart);
    this.#io.write(this.#handle, staging, 0, paddedEnd - blockStart, blockStart);
    this.#recent.wrote(staging, blockStart, dataEndBytes, endBytes);
    return paddedEnd - blockStart - length;
  }

  close(): void {
    this.#io.close(this.#handle);
  }

  /** Closes without reporting a failure to: for giving the segment up after another one. */
  abandon(): void {
    closeAfterFailure(this.#io, this.#handle);
  }

  /**
   * The data of the block at `blockStart` (up to `dataEndBytes`) to the front of `staging`: as
   * the last write left it, or from the file when none did (a reopened log, a cut back).
   */
  #copyDataBefore(staging: Buffer, blockStart: number, dataEndBytes: number): void {
    const dataBytes = dataEndBytes - blockStart;
    if (dataBytes <= 0 || this.#recent.readInto(staging, 0, dataBytes, blockStart)) return;
    const got = this.#io.read(this.#readHandle, staging, 0, dataBytes, blockStart);
    assert(got === dataBytes, `the data's last block is in the file: ${got} of ${dataBytes} bytes`);
  }
}
