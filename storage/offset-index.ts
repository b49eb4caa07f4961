/**
 * The sparse offset index of one segment (`<base offset>.index`).
 *
 *   entry (8 bytes, big-endian):  +-----------------+-----------------+
 *                                 | relative offset |    position     |
 *                                 |       u32       |       u32       |
 *                                 +-----------------+-----------------+
 *
 * The relative offset is the record's offset minus the segment's base offset (offset 55 in a
 * segment based at 50 is stored as 5); the position is the byte where that record starts in the
 * `.log` file. Both strictly increase from entry to entry. No checksum: the index is a cache of
 * the log, validated when loaded and rebuilt from the log when damaged, missing or behind.
 *
 * Entries live in memory (two u32 columns, like Kafka's memory-mapped index kept resident) so a
 * lookup is a binary search without a system call; the file is written behind (index-file.ts).
 */
import type { FileHandle, FileIO } from './file-io.js';
import { assert } from './errors.js';
import { IndexFile, U32Column, largestLowerBoundSlot } from './index-file.js';

export const OFFSET_INDEX_ENTRY_BYTES = 8;
assert(OFFSET_INDEX_ENTRY_BYTES === 4 + 4, 'offset index entry is relative offset + position');

export interface IndexLoad {
  /** Entries the file held. */
  readonly fileEntries: number;
  /** Entries that passed validation (a prefix of the file). */
  readonly validEntries: number;
}

export class OffsetIndex {
  readonly #file: IndexFile;
  readonly #relativeOffsets = new U32Column();
  readonly #positions = new U32Column();

  private constructor(file: IndexFile) {
    this.#file = file;
  }

  /** An empty index in a new (or emptied) file, open for appends. */
  static create(io: FileIO, path: string): OffsetIndex {
    const handle = io.open(path, { create: true });
    io.truncate(handle, 0);
    return new OffsetIndex(new IndexFile(io, path, OFFSET_INDEX_ENTRY_BYTES, handle, 0));
  }

  /**
   * Loads the file's entries, keeping the longest valid prefix: strictly increasing relative
   * offsets and positions, every position below `logSizeBytes`. With `forAppend` the file stays
   * open and is cut to the valid prefix; otherwise it is closed after reading.
   */
  static load(io: FileIO, path: string, logSizeBytes: number, forAppend: boolean): { index: OffsetIndex; load: IndexLoad } {
    const bytes = io.readWholeFile(path) ?? Buffer.alloc(0);
    const fileEntries = Math.floor(bytes.length / OFFSET_INDEX_ENTRY_BYTES);
    const handle: FileHandle | null = forAppend ? io.open(path, { create: true }) : null;
    const index = new OffsetIndex(new IndexFile(io, path, OFFSET_INDEX_ENTRY_BYTES, handle, fileEntries));
    for (let slot = 0; slot < fileEntries; slot++) {
      const relativeOffset = bytes.readUInt32BE(slot * OFFSET_INDEX_ENTRY_BYTES);
      const position = bytes.readUInt32BE(slot * OFFSET_INDEX_ENTRY_BYTES + 4);
      if (!index.#accepts(relativeOffset, position) || position >= logSizeBytes) break;
      index.#push(relativeOffset, position);
    }
    const validEntries = index.entries;
    if (forAppend && bytes.length !== validEntries * OFFSET_INDEX_ENTRY_BYTES) {
      index.#file.truncateEntries(validEntries);
    }
    return { index, load: { fileEntries, validEntries } };
  }

  get entries(): number {
    return this.#relativeOffsets.length;
  }

  get sizeBytes(): number {
    return this.entries * OFFSET_INDEX_ENTRY_BYTES;
  }

  get path(): string {
    return this.#file.path;
  }

  /** Open for appends (the active segment's index). */
  get isOpen(): boolean {
    return this.#file.isOpen;
  }

  relativeOffsetAt(slot: number): number {
    return this.#relativeOffsets.at(slot);
  }

  positionAt(slot: number): number {
    return this.#positions.at(slot);
  }

  append(relativeOffset: number, position: number): void {
    assert(this.#accepts(relativeOffset, position), 'index entries strictly increase');
    this.#push(relativeOffset, position);
    const { buffer, at } = this.#file.reserve();
    buffer.writeUInt32BE(relativeOffset, at);
    buffer.writeUInt32BE(position, at + 4);
  }

  /** The entry slot with the largest relative offset <= target, or -1 when there is none. */
  largestLowerBoundSlotFor(relativeOffset: number): number {
    return largestLowerBoundSlot((slot) => this.#relativeOffsets.at(slot), this.entries, relativeOffset);
  }

  /** Drops every entry whose position is >= `positionBytes` (recovery cut the log there). */
  truncateFromPosition(positionBytes: number): void {
    let keep = this.entries;
    while (keep > 0 && this.#positions.at(keep - 1) >= positionBytes) keep--;
    if (keep === this.entries) return;
    this.#file.flushEntries();
    this.#relativeOffsets.truncate(keep);
    this.#positions.truncate(keep);
    if (this.#file.isOpen) this.#file.truncateEntries(keep);
  }

  /** Throws the entries away (the index turned out damaged or behind) before a rebuild. */
  clear(): void {
    this.#relativeOffsets.truncate(0);
    this.#positions.truncate(0);
    if (this.#file.isOpen) this.#file.rewrite(Buffer.alloc(0), 0);
  }

  flush(): void {
    this.#file.flushEntries();
  }

  sync(): void {
    this.#file.sync();
  }

  close(): void {
    this.#file.close();
  }

  #accepts(relativeOffset: number, position: number): boolean {
    const last = this.entries - 1;
    return last < 0 || (relativeOffset > this.#relativeOffsets.at(last) && position > this.#positions.at(last));
  }

  #push(relativeOffset: number, position: number): void {
    this.#relativeOffsets.push(relativeOffset);
    this.#positions.push(position);
  }
}
