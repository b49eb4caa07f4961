/**
 * The file behind an index: fixed-size entries appended at the end, written behind.
 *
 * An index is a cache of the log (the course, lesson 2: "the index is a copy, not the truth"), so
 * its entries need not reach the file with every record: they are buffered here and written in one
 * positional write when `flushEntries` is called (a full buffer, a roll, a recovery point, close).
 * A crash loses at most the buffered entries, which recovery rebuilds from the log. The log is
 * always written before its index entries, so an index never points past data that was written.
 */
import { type FileHandle, type FileIO, closeAfterFailure, openEmptied } from '../io/file-io.js';
import { assert } from '../errors.js';

export interface IndexLoad {
  /** Entries the file held. */
  readonly fileEntries: number;
  /** Entries that passed validation (a prefix of the file). */
  readonly validEntries: number;
}

/**
 * How an index is kept: `append`, its file open for writing behind; `read`, read once and closed;
 * `memory`, entries added in memory only and never written (a read-only open rebuilding a
 * damaged or short index must not change the file).
 */
export type IndexMode = 'append' | 'read' | 'memory';

/** A new (or emptied) index file, open for appends; in `memory` mode no file is touched. */
export function createIndexFile(
  io: FileIO,
  path: string,
  entryBytes: number,
  mode: IndexMode = 'append',
): IndexFile {
  if (mode === 'memory') return new IndexFile(io, path, entryBytes, null, 0, true);
  return new IndexFile(io, path, entryBytes, openEmptied(io, path), 0);
}

/**
 * Loads an index file into `make(file)`'s index, keeping the longest valid prefix: `keep` is
 * asked about each entry (at byte `at` of the file's bytes) in order, takes it and says yes, or
 * says no and the load stops. In `append` mode the file stays open and is cut to the entries
 * kept; otherwise it is only read (and in `memory` mode later entries stay in memory).
 */
export function loadIndexFile<T>(
  io: FileIO,
  path: string,
  entryBytes: number,
  mode: IndexMode,
  make: (file: IndexFile) => T,
  keep: (index: T, bytes: Buffer, at: number) => boolean,
): { index: T; load: IndexLoad } {
  const forAppend = mode === 'append';
  const bytes = io.readWholeFile(path) ?? Buffer.alloc(0);
  const fileEntries = Math.floor(bytes.length / entryBytes);
  const handle = forAppend ? io.open(path, { create: true }) : null;
  const file = new IndexFile(io, path, entryBytes, handle, fileEntries, mode === 'memory');
  const index = make(file);
  let validEntries = 0;
  while (validEntries < fileEntries && keep(index, bytes, validEntries * entryBytes))
    validEntries++;
  try {
    if (forAppend && bytes.length !== validEntries * entryBytes) file.truncateEntries(validEntries);
  } catch (error) {
    file.abandon();
    throw error;
  }
  return { index, load: { fileEntries, validEntries } };
}

export class IndexFile {
  readonly path: string;
  readonly entryBytes: number;
  readonly #io: FileIO;
  #handle: FileHandle | null;
  /** Entries already in the file. */
  #writtenEntries: number;
  #pending: Buffer;
  #pendingEntries = 0;
  /** Entries live in memory only: nothing is ever written (see IndexMode). */
  readonly #memoryOnly: boolean;

  constructor(
    io: FileIO,
    path: string,
    entryBytes: number,
    handle: FileHandle | null,
    writtenEntries: number,
    memoryOnly = false,
  ) {
    assert(entryBytes > 0, 'entries have a size');
    assert(!memoryOnly || handle === null, 'an in-memory index has no file open');
    this.#io = io;
    this.path = path;
    this.entryBytes = entryBytes;
    this.#handle = handle;
    this.#writtenEntries = writtenEntries;
    this.#memoryOnly = memoryOnly;
    this.#pending = Buffer.alloc(entryBytes * 512);
  }

  get isOpen(): boolean {
    return this.#handle !== null;
  }

  /**
   * Space for one more entry in the write-behind buffer: where it starts in `pending`, which the
   * caller fills before anything else touches this file.
   */
  reserve(): number {
    if (this.#handle === null && !this.#memoryOnly) {
      throw new Error(`assertion failed: index ${this.path} is open for appends`);
    }
    if ((this.#pendingEntries + 1) * this.entryBytes > this.#pending.length) this.flushEntries();
    const at = this.#pendingEntries * this.entryBytes;
    this.#pendingEntries++;
    return at;
  }

  get pending(): Buffer {
    return this.#pending;
  }

  flushEntries(): void {
    if (this.#memoryOnly) this.#pendingEntries = 0;
    if (this.#pendingEntries === 0 || this.#handle === null) return;
    const length = this.#pendingEntries * this.entryBytes;
    this.#io.write(this.#handle, this.#pending, 0, length, this.#writtenEntries * this.entryBytes);
    this.#writtenEntries += this.#pendingEntries;
    this.#pendingEntries = 0;
  }

  /**
   * Makes the file durable, open or not: a sealed segment's index was closed at the roll, and
   * under `none` nothing synced it then.
   */
  sync(): void {
    this.flushEntries();
    if (this.#memoryOnly) return;
    if (this.#handle !== null) {
      this.#io.fdatasync(this.#handle);
      return;
    }
    const handle = this.#io.open(this.path, { create: false });
    try {
      this.#io.fdatasync(handle);
    } catch (error) {
      closeAfterFailure(this.#io, handle);
      throw error;
    }
    this.#io.close(handle);
  }

  /** Cuts the file to `entries` entries (recovery, or an index found damaged). */
  truncateEntries(entries: number): void {
    assert(this.#handle !== null, `index ${this.path} is open`);
    assert(this.#pendingEntries === 0, 'no buffered entries while truncating');
    this.#io.truncate(this.#handle, entries * this.entryBytes);
    this.#writtenEntries = entries;
  }

  /** Writes buffered entries and closes; the file is closed even when the write fails. */
  close(): void {
    if (this.#handle === null) return;
    try {
      this.flushEntries();
    } catch (error) {
      this.abandon();
      throw error;
    }
    this.#io.close(this.#handle);
    this.#handle = null;
  }

  /** Closes without writing buffered entries, after a failure (the index is a cache). */
  abandon(): void {
    const handle = this.#handle;
    this.#handle = null;
    this.#pendingEntries = 0;
    if (handle !== null) closeAfterFailure(this.#io, handle);
  }
}

type NumberArray = Uint32Array | Float64Array;

/**
 * A growable column of numbers in a typed array, without per-entry allocation: u32 for relative
 * offsets and positions, float64 for ms timestamps.
 */
export class Column<T extends NumberArray = NumberArray> {
  #values: T;
  readonly #make: (length: number) => T;
  length = 0;

  constructor(make: (length: number) => T) {
    this.#make = make;
    this.#values = make(64);
  }

  push(value: number): void {
    if (this.length === this.#values.length) {
      const grown = this.#make(this.#values.length * 2);
      grown.set(this.#values);
      this.#values = grown;
    }
    this.#values[this.length++] = value;
  }

  at(slot: number): number {
    return this.#values[slot]!;
  }

  truncate(length: number): void {
    assert(length <= this.length, 'truncate only shortens');
    this.length = length;
  }
}

export class U32Column extends Column<Uint32Array> {
  constructor() {
    super((length) => new Uint32Array(length));
  }
}

export class F64Column extends Column<Float64Array> {
  constructor() {
    super((length) => new Float64Array(length));
  }
}

/**
 * The largest slot whose key is <= target, or -1 when every key is larger (Kafka's
 * `largestLowerBoundSlotFor`). Keys must be non-decreasing.
 */
export function largestLowerBoundSlot(
  keyAt: (slot: number) => number,
  length: number,
  target: number,
  from = 0,
): number {
  let low = from;
  let high = length - 1;
  let found = from - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    if (keyAt(middle) <= target) {
      found = middle;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  return found;
}

/** The smallest slot whose key is >= target, or `length` when none is. */
export function smallestUpperBoundSlot(
  keyAt: (slot: number) => number,
  length: number,
  target: number,
): number {
  let low = 0;
  let high = length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (keyAt(middle) < target) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * An index held in memory as two columns, one entry per slot, its file written behind. The
 * offset and time indexes differ only in their columns, their ordering rules and their entries'
 * bytes; keeping, flushing and closing are the same.
 */
export abstract class TwoColumnIndex {
  protected readonly file: IndexFile;
  protected readonly first: Column;
  protected readonly second: Column;

  protected constructor(file: IndexFile, first: Column, second: Column) {
    this.file = file;
    this.first = first;
    this.second = second;
  }

  get entries(): number {
    return this.first.length;
  }

  get sizeBytes(): number {
    return this.entries * this.file.entryBytes;
  }

  get path(): string {
    return this.file.path;
  }

  /** Open for appends (the active segment's index). */
  get isOpen(): boolean {
    return this.file.isOpen;
  }

  flush(): void {
    this.file.flushEntries();
  }

  sync(): void {
    this.file.sync();
  }

  close(): void {
    this.file.close();
  }

  /** Closes the file without writing buffered entries, after a failure. */
  abandon(): void {
    this.file.abandon();
  }

  protected push(first: number, second: number): void {
    this.first.push(first);
    this.second.push(second);
  }

  /** Keeps the first `keep` entries, in memory and in the file. */
  protected keepEntries(keep: number): void {
    if (keep === this.entries) return;
    this.file.flushEntries();
    this.first.truncate(keep);
    this.second.truncate(keep);
    if (this.file.isOpen) this.file.truncateEntries(keep);
  }
}
