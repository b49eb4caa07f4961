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
 * `searchIndexFile` searches the file itself instead, a pread per probe, to show what a lookup
 * costs when the index's pages have left the page cache (and what Kafka's warm section saves).
 */
import type { FileHandle, FileIO } from '../io/file-io.js';
import { StorageError, assert } from '../errors.js';
import { putU32 } from '../big-endian.js';
import {
  type IndexFile,
  TwoColumnIndex,
  U32Column,
  createIndexFile,
  largestLowerBoundSlot,
  loadIndexFile,
  type IndexLoad,
  type IndexMode,
} from './index-file.js';

export const OFFSET_INDEX_ENTRY_BYTES = 8;
assert(OFFSET_INDEX_ENTRY_BYTES === 4 + 4, 'offset index entry is relative offset + position');

export type { IndexLoad, IndexMode } from './index-file.js';

/** Columns: `first` holds relative offsets, `second` positions. */
export class OffsetIndex extends TwoColumnIndex {
  private constructor(file: IndexFile) {
    super(file, new U32Column(), new U32Column());
  }

  /** An empty index in a new (or emptied) file, open for appends (or in memory only). */
  static create(io: FileIO, path: string, mode: IndexMode = 'append'): OffsetIndex {
    return new OffsetIndex(createIndexFile(io, path, OFFSET_INDEX_ENTRY_BYTES, mode));
  }

  /**
   * Loads the file's entries, keeping the longest valid prefix: strictly increasing relative
   * offsets and positions, every position below `logSizeBytes`. In `append` mode the file stays
   * open and is cut to the valid prefix; otherwise it is only read.
   */
  static load(
    io: FileIO,
    path: string,
    logSizeBytes: number,
    mode: IndexMode,
  ): { index: OffsetIndex; load: IndexLoad } {
    return loadIndexFile(
      io,
      path,
      OFFSET_INDEX_ENTRY_BYTES,
      mode,
      (file) => new OffsetIndex(file),
      (index, bytes, at) => {
        const relativeOffset = bytes.readUInt32BE(at);
        const position = bytes.readUInt32BE(at + 4);
        if (!index.#accepts(relativeOffset, position) || position >= logSizeBytes) return false;
        index.push(relativeOffset, position);
        return true;
      },
    );
  }

  /**
   * The file's last entry, read alone (8 bytes) instead of loading the whole index: where a check
   * of a sealed segment's end starts its walk. Null when the file is missing, empty or its last
   * entry points at or past `logSizeBytes` — the walk then starts at the segment's beginning.
   */
  static lastEntryOnDisk(
    io: FileIO,
    path: string,
    logSizeBytes: number,
  ): { relativeOffset: number; positionBytes: number } | null {
    if (!io.exists(path)) return null;
    const handle = io.openReadOnly(path);
    try {
      const entries = Math.floor(io.sizeBytes(handle) / OFFSET_INDEX_ENTRY_BYTES);
      if (entries === 0) return null;
      const entry = Buffer.alloc(OFFSET_INDEX_ENTRY_BYTES);
      const got = io.read(
        handle,
        entry,
        0,
        OFFSET_INDEX_ENTRY_BYTES,
        (entries - 1) * OFFSET_INDEX_ENTRY_BYTES,
      );
      const positionBytes = entry.readUInt32BE(4);
      if (got !== OFFSET_INDEX_ENTRY_BYTES || positionBytes >= logSizeBytes) return null;
      return { relativeOffset: entry.readUInt32BE(0), positionBytes };
    } finally {
      io.close(handle);
    }
  }

  relativeOffsetAt(slot: number): number {
    return this.first.at(slot);
  }

  positionAt(slot: number): number {
    return this.second.at(slot);
  }

  append(relativeOffset: number, position: number): void {
    assert(this.#accepts(relativeOffset, position), 'index entries strictly increase');
    this.push(relativeOffset, position);
    const at = this.file.reserve();
    putU32(this.file.pending, relativeOffset, at);
    putU32(this.file.pending, position, at + 4);
  }

  /** The entry slot with the largest relative offset <= target, or -1 when there is none. */
  largestLowerBoundSlotFor(relativeOffset: number): number {
    return largestLowerBoundSlot((slot) => this.first.at(slot), this.entries, relativeOffset);
  }

  /** Drops every entry whose position is >= `positionBytes` (recovery cut the log there). */
  truncateFromPosition(positionBytes: number): void {
    let keep = this.entries;
    while (keep > 0 && this.second.at(keep - 1) >= positionBytes) keep--;
    this.keepEntries(keep);
  }

  /**
   * Asserts that the entries still keep the rules `load` and `append` enforce one entry at a
   * time (Segment.checkInvariants): both columns strictly increase, and the last entry names a
   * record of the segment, below `logSizeBytes` and `nextRelativeOffset`. It walks every entry.
   */
  checkEntries(logSizeBytes: number, nextRelativeOffset: number): void {
    for (let slot = 1; slot < this.entries; slot++) {
      const follows = this.#follows(slot - 1, this.first.at(slot), this.second.at(slot));
      assert(follows, `${this.path}: entry ${slot} increases on entry ${slot - 1}`);
    }
    const last = this.entries - 1;
    if (last < 0) return;
    assert(this.second.at(last) < logSizeBytes, `${this.path}: the last entry is in the data`);
    assert(
      this.first.at(last) < nextRelativeOffset,
      `${this.path}: the last entry names a record of the segment`,
    );
  }

  #accepts(relativeOffset: number, position: number): boolean {
    return this.#follows(this.entries - 1, relativeOffset, position);
  }

  /** Whether an entry may come after the one at `slot` (-1: none before it). */
  #follows(slot: number, relativeOffset: number, position: number): boolean {
    return slot < 0 || (relativeOffset > this.first.at(slot) && position > this.second.at(slot));
  }
}

/** What one search of an index file on disk did (searchIndexFile). */
export interface IndexFileSearch {
  /** The slot of the largest entry whose relative offset is <= the target; -1 when none is. */
  readonly slot: number;
  readonly relativeOffset: number | null;
  readonly positionBytes: number | null;
  readonly entries: number;
  /** Entries read, one pread of 8 bytes each. */
  readonly probes: number;
  /** Distinct pages of the file the probes touched: what a cold cache must fetch. */
  readonly pagesTouched: number;
}

export interface IndexFileSearchOptions {
  /** Kafka's warm section: search the last this-many bytes first; 0 (default): plain search. */
  readonly warmSectionBytes?: number;
  /** Page size pages are counted in. */
  readonly pageBytes?: number;
}

const DEFAULT_PAGE_BYTES = 4096;

/** Reads entries of an index file one pread at a time, remembering the pages it touched. */
class IndexFileProbe {
  readonly pages: number[] = [];
  probes = 0;
  readonly #io: FileIO;
  readonly #handle: FileHandle;
  readonly #pageBytes: number;
  readonly #entry = Buffer.alloc(OFFSET_INDEX_ENTRY_BYTES);
  /** Entries probed so far: slot → [relative offset, position]. */
  readonly #probed = new Map<number, readonly [number, number]>();

  constructor(io: FileIO, handle: FileHandle, pageBytes: number) {
    this.#io = io;
    this.#handle = handle;
    this.#pageBytes = pageBytes;
  }

  relativeOffsetAt(slot: number): number {
    const at = slot * OFFSET_INDEX_ENTRY_BYTES;
    const got = this.#io.read(this.#handle, this.#entry, 0, OFFSET_INDEX_ENTRY_BYTES, at);
    if (got !== OFFSET_INDEX_ENTRY_BYTES) {
      throw new StorageError(
        'SHORT_IO',
        `index entry ${slot} ended after ${got} of ${OFFSET_INDEX_ENTRY_BYTES} bytes; ` +
          'the file shrank during the search: search it again',
        { positionBytes: at, sizeBytes: OFFSET_INDEX_ENTRY_BYTES },
      );
    }
    this.probes++;
    const page = Math.floor(at / this.#pageBytes);
    if (!this.pages.includes(page)) this.pages.push(page);
    const relativeOffset = this.#entry.readUInt32BE(0);
    this.#probed.set(slot, [relativeOffset, this.#entry.readUInt32BE(4)]);
    return relativeOffset;
  }

  /** An entry already probed, without reading it again. */
  probedEntry(slot: number): readonly [number, number] {
    const entry = this.#probed.get(slot);
    assert(entry !== undefined, `slot ${slot} was probed`);
    return entry;
  }
}

/**
 * The largest entry at or below `relativeOffset`, found in the index FILE rather than the
 * resident columns: one pread per probe, as an index whose pages may have left the page cache is
 * read (Kafka's mmap). With `warmSectionBytes`, Kafka's AbstractIndex.indexSlotRangeFor: when the
 * target is above the first entry of the last `warmSectionBytes`, only that section is searched,
 * so lookups of recent offsets touch only the pages appends and recent lookups keep warm; older
 * targets pay one extra probe, then search the rest. The file is trusted as written.
 */
export function searchIndexFile(
  io: FileIO,
  handle: FileHandle,
  relativeOffset: number,
  options: IndexFileSearchOptions = {},
): IndexFileSearch {
  const warmBytes = options.warmSectionBytes ?? 0;
  const pageBytes = options.pageBytes ?? DEFAULT_PAGE_BYTES;
  assert(Number.isSafeInteger(relativeOffset), `relative offset not an integer: ${relativeOffset}`);
  assert(Number.isSafeInteger(warmBytes), `warm section not whole bytes: ${warmBytes}`);
  assert(warmBytes >= 0, `warmSectionBytes must be >= 0: ${warmBytes}`);
  assert(Number.isSafeInteger(pageBytes), `pageBytes must be an integer: ${pageBytes}`);
  assert(pageBytes > 0, `pageBytes must be positive: ${pageBytes}`);
  const entries = Math.floor(io.sizeBytes(handle) / OFFSET_INDEX_ENTRY_BYTES);
  const probe = new IndexFileProbe(io, handle, pageBytes);
  const keyAt = (slot: number) => probe.relativeOffsetAt(slot);
  const warmEntries = Math.floor(warmBytes / OFFSET_INDEX_ENTRY_BYTES);
  let slot = -1;
  if (entries > 0 && warmEntries === 0) {
    slot = largestLowerBoundSlot(keyAt, entries, relativeOffset);
  } else if (entries > 0) {
    const firstWarm = Math.max(0, entries - 1 - warmEntries);
    if (keyAt(firstWarm) < relativeOffset) {
      slot = largestLowerBoundSlot(keyAt, entries, relativeOffset, firstWarm);
    } else if (keyAt(0) <= relativeOffset) {
      slot = largestLowerBoundSlot(keyAt, firstWarm + 1, relativeOffset);
    }
  }
  const entry = slot >= 0 ? probe.probedEntry(slot) : null;
  return {
    slot,
    relativeOffset: entry === null ? null : entry[0],
    positionBytes: entry === null ? null : entry[1],
    entries,
    probes: probe.probes,
    pagesTouched: probe.pages.length,
  };
}
